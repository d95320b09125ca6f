const { test } = require("node:test");
const assert = require("node:assert/strict");
const { lastN } = require("../src/last.js");

test("last items", () => {
  assert.deepEqual(lastN([1, 2, 3, 4], 2), [3, 4]);
  assert.deepEqual(lastN([1, 2, 3], 3), [1, 2, 3]);
});
test("zero items", () => {
  assert.deepEqual(lastN([1, 2, 3], 0), []);
});
