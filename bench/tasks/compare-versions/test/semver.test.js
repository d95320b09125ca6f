const { test } = require("node:test");
const assert = require("node:assert/strict");
const { compareVersions } = require("../src/semver.js");

test("ordering", () => {
  assert.equal(compareVersions("1.10.0", "1.9.3"), 1);
  assert.equal(compareVersions("1.2.0", "1.2.1"), -1);
  assert.equal(compareVersions("2.0", "2.0.0"), 0);
  assert.equal(compareVersions("0.0.0", "0.0.0"), 0);
});
