// flatten([1, [2, [3, [4]]], 5]) -> [1, 2, 3, 4, 5]
function flatten(array) {
  const out = [];
  for (const item of array) {
    if (Array.isArray(item)) out.push(...flatten(item));
    else out.push(item);
  }
  return out;
}

module.exports = { flatten };
