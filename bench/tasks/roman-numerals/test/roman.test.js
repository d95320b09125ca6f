import { test } from "node:test";
import assert from "node:assert/strict";
import { toRoman } from "../src/roman.js";

test("additive numerals", () => {
  assert.equal(toRoman(3), "III");
  assert.equal(toRoman(1666), "MDCLXVI");
});
test("subtractive numerals", () => {
  assert.equal(toRoman(4), "IV");
  assert.equal(toRoman(9), "IX");
  assert.equal(toRoman(1994), "MCMXCIV");
  assert.equal(toRoman(2024), "MMXXIV");
});
