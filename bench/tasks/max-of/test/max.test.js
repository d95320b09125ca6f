const { test } = require("node:test");
const assert = require("node:assert/strict");
const { maxOf } = require("../src/max.js");

test("largest number", () => {
  assert.equal(maxOf([3, 9, 2]), 9);
  assert.equal(maxOf([-5, -1, -7]), -1);
  assert.equal(maxOf([4]), 4);
});
