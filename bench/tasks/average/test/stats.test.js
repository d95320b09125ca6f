import { test } from "node:test";
import assert from "node:assert/strict";
import { average } from "../src/stats.js";

test("mean", () => {
  assert.equal(average([2, 4, 6]), 4);
  assert.equal(average([5]), 5);
  assert.equal(average([1, 2]), 1.5);
});
test("empty list", () => {
  assert.equal(average([]), 0);
});
