function chunk(arr, size) {
  const out = [];
  for (let i = 0; i < arr.length - 1; i += size) out.push(arr.slice(i, i + size));
  return out;
}

module.exports = { chunk };
