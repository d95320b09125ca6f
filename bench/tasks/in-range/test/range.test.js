import { test } from "node:test";
import assert from "node:assert/strict";
import { inRange } from "../src/range.js";

test("inside and on the bounds", () => {
  assert.equal(inRange(5, 1, 10), true);
  assert.equal(inRange(1, 1, 10), true);
  assert.equal(inRange(10, 1, 10), true);
});
test("outside", () => {
  assert.equal(inRange(0, 1, 10), false);
  assert.equal(inRange(11, 1, 10), false);
});
