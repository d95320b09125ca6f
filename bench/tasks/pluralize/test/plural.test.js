const { test } = require("node:test");
const assert = require("node:assert/strict");
const { pluralize } = require("../src/plural.js");

test("regular plurals", () => {
  assert.equal(pluralize("cat"), "cats");
  assert.equal(pluralize("box"), "boxes");
  assert.equal(pluralize("church"), "churches");
  assert.equal(pluralize("day"), "days");
});
test("consonant + y", () => {
  assert.equal(pluralize("city"), "cities");
  assert.equal(pluralize("party"), "parties");
});
