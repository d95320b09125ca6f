const { test } = require("node:test");
const assert = require("node:assert/strict");
const { toFahrenheit } = require("../src/temperature.js");

test("known points", () => {
  assert.equal(toFahrenheit(0), 32);
  assert.equal(toFahrenheit(100), 212);
  assert.equal(toFahrenheit(-40), -40);
});
