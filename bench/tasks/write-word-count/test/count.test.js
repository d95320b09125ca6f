const { test } = require("node:test");
const assert = require("node:assert/strict");
const { wordCount } = require("../src/count.js");

test("counts words", () => {
  assert.deepEqual(wordCount("The cat; the hat."), { the: 2, cat: 1, hat: 1 });
  assert.deepEqual(wordCount("a A a, b"), { a: 3, b: 1 });
});
test("no words", () => {
  assert.deepEqual(wordCount(""), {});
  assert.deepEqual(wordCount("... !"), {});
});
