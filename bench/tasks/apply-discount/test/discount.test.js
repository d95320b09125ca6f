import { test } from "node:test";
import assert from "node:assert/strict";
import { applyDiscount } from "../src/discount.js";

test("discounts", () => {
  assert.equal(applyDiscount(100, 25), 75);
  assert.equal(applyDiscount(19.99, 10), 17.99);
  assert.equal(applyDiscount(50, 0), 50);
});
