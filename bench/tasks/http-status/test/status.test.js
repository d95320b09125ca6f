const { test } = require("node:test");
const assert = require("node:assert/strict");
const { statusText } = require("../src/status.js");

test("known codes", () => {
  assert.equal(statusText(200), "OK");
  assert.equal(statusText(404), "Not Found");
  assert.equal(statusText(500), "Internal Server Error");
});
test("unknown codes", () => {
  assert.equal(statusText(418), "Unknown");
});
