const { test } = require("node:test");
const assert = require("node:assert/strict");
const { nthWord } = require("../src/words.js");

test("words counted from one", () => {
  assert.equal(nthWord("the quick brown fox", 1), "the");
  assert.equal(nthWord("the quick brown fox", 4), "fox");
  assert.equal(nthWord("  spaced   out  ", 2), "out");
});
test("past the end", () => {
  assert.equal(nthWord("one two", 3), undefined);
});
