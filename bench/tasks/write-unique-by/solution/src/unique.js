// uniqueBy([{id: 1, v: "a"}, {id: 1, v: "b"}], "id") -> [{id: 1, v: "a"}]
export function uniqueBy(items, key) {
  const seen = new Set();
  return items.filter((item) => {
    if (seen.has(item[key])) return false;
    seen.add(item[key]);
    return true;
  });
}
