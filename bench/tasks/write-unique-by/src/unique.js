// uniqueBy([{id: 1, v: "a"}, {id: 1, v: "b"}], "id") -> [{id: 1, v: "a"}]
export function uniqueBy(items, key) {
  throw new Error("not implemented");
}
