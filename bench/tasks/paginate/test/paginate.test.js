import { test } from "node:test";
import assert from "node:assert/strict";
import { page } from "../src/paginate.js";

const items = ["a", "b", "c", "d", "e"];
test("first and second page", () => {
  assert.deepEqual(page(items, 1, 2), ["a", "b"]);
  assert.deepEqual(page(items, 2, 2), ["c", "d"]);
});
test("last, partial page", () => {
  assert.deepEqual(page(items, 3, 2), ["e"]);
});
