const { test } = require("node:test");
const assert = require("node:assert/strict");
const { isWeekend } = require("../src/days.js");

test("saturday and sunday", () => {
  assert.equal(isWeekend(0), true);
  assert.equal(isWeekend(6), true);
});
test("weekdays", () => {
  for (const d of [1, 2, 3, 4, 5]) assert.equal(isWeekend(d), false);
});
