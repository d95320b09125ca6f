import { test } from "node:test";
import assert from "node:assert/strict";
import { uniqueBy } from "../src/unique.js";

test("first item per key", () => {
  const items = [
    { id: 1, v: "a" },
    { id: 2, v: "b" },
    { id: 1, v: "c" },
    { id: 3, v: "d" },
    { id: 2, v: "e" },
  ];
  assert.deepEqual(uniqueBy(items, "id"), [
    { id: 1, v: "a" },
    { id: 2, v: "b" },
    { id: 3, v: "d" },
  ]);
  assert.deepEqual(uniqueBy([], "id"), []);
});
