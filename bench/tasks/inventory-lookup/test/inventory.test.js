const { test } = require("node:test");
const assert = require("node:assert/strict");
const { stockOf } = require("../src/inventory.js");

test("stock per sku", () => {
  assert.equal(stockOf("C-3"), 12);
  assert.equal(stockOf("B-2"), 0);
  assert.equal(stockOf("A-1"), 4);
});
test("unknown sku", () => {
  assert.equal(stockOf("Z-9"), 0);
});
