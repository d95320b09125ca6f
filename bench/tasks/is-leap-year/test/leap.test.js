import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeapYear } from "../src/leap.js";

test("ordinary leap years", () => {
  assert.equal(isLeapYear(2024), true);
  assert.equal(isLeapYear(1996), true);
});
test("non-leap years", () => {
  assert.equal(isLeapYear(2023), false);
  assert.equal(isLeapYear(1900), false);
});
test("centuries divisible by 400", () => {
  assert.equal(isLeapYear(2000), true);
  assert.equal(isLeapYear(1600), true);
});
