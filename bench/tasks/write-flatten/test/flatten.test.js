const { test } = require("node:test");
const assert = require("node:assert/strict");
const { flatten } = require("../src/flatten.js");

test("deep flatten", () => {
  assert.deepEqual(flatten([1, [2, [3, [4]]], 5]), [1, 2, 3, 4, 5]);
  assert.deepEqual(flatten([[], [[]], "a"]), ["a"]);
  assert.deepEqual(flatten([]), []);
});
