const { test } = require("node:test");
const assert = require("node:assert/strict");
const { report } = require("../src/report.js");

test("report lines", () => {
  assert.equal(report([212, 32, 50]), "212F = 100C\n32F = 0C\n50F = 10C");
});
