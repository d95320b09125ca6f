const { test } = require("node:test");
const assert = require("node:assert/strict");
const { chunk } = require("../src/chunk.js");

test("even split", () => {
  assert.deepEqual(chunk([1, 2, 3, 4], 2), [[1, 2], [3, 4]]);
});
test("a last chunk of one item", () => {
  assert.deepEqual(chunk([1, 2, 3], 2), [[1, 2], [3]]);
  assert.deepEqual(chunk([7], 3), [[7]]);
});
test("empty input", () => {
  assert.deepEqual(chunk([], 2), []);
});
