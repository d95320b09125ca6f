import { test } from "node:test";
import assert from "node:assert/strict";
import { cartTotal } from "../src/cart.js";

test("total with tax", () => {
  assert.equal(cartTotal([{ price: 10, qty: 2 }]), 24);
  assert.equal(cartTotal([{ price: 2.5, qty: 1 }, { price: 1, qty: 3 }]), 6.6);
  assert.equal(cartTotal([]), 0);
});
