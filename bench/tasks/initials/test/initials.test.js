const { test } = require("node:test");
const assert = require("node:assert/strict");
const { initials } = require("../src/initials.js");

test("names", () => {
  assert.equal(initials("ada lovelace"), "AL");
  assert.equal(initials("  Grace  Brewster Hopper "), "GBH");
});
test("empty and blank names", () => {
  assert.equal(initials(""), "");
  assert.equal(initials("   "), "");
});
