const { test } = require("node:test");
const assert = require("node:assert/strict");
const { formatDuration } = require("../src/duration.js");

test("zero padded", () => {
  assert.equal(formatDuration(65), "01:05");
  assert.equal(formatDuration(0), "00:00");
  assert.equal(formatDuration(600), "10:00");
  assert.equal(formatDuration(3599), "59:59");
});
