import { test } from "node:test";
import assert from "node:assert/strict";
import { sumRange } from "../src/sum.js";

test("inclusive sums", () => {
  assert.equal(sumRange(1, 4), 10);
  assert.equal(sumRange(3, 3), 3);
  assert.equal(sumRange(-2, 2), 0);
});
