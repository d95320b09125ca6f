import { test } from "node:test";
import assert from "node:assert/strict";
import { fizzbuzz } from "../src/fizzbuzz.js";

test("fizz, buzz and numbers", () => {
  assert.equal(fizzbuzz(9), "Fizz");
  assert.equal(fizzbuzz(10), "Buzz");
  assert.equal(fizzbuzz(7), "7");
});
test("fizzbuzz", () => {
  assert.equal(fizzbuzz(15), "FizzBuzz");
  assert.equal(fizzbuzz(45), "FizzBuzz");
});
