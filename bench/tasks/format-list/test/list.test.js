const { test } = require("node:test");
const assert = require("node:assert/strict");
const { formatList } = require("../src/list.js");

test("short lists", () => {
  assert.equal(formatList([]), "");
  assert.equal(formatList(["a"]), "a");
  assert.equal(formatList(["a", "b"]), "a and b");
});
test("longer lists", () => {
  assert.equal(formatList(["a", "b", "c"]), "a, b and c");
  assert.equal(formatList(["red", "green", "blue", "gold"]), "red, green, blue and gold");
});
