import { test } from "node:test";
import assert from "node:assert/strict";
import { formatPrice } from "../src/price.js";

test("two decimals", () => {
  assert.equal(formatPrice(1205), "$12.05");
  assert.equal(formatPrice(1200), "$12.00");
  assert.equal(formatPrice(5), "$0.05");
  assert.equal(formatPrice(0), "$0.00");
});
