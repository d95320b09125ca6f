const ITEMS = [
  { sku: "A-1", qty: 4 },
  { sku: "B-2", qty: 0 },
  { sku: "C-3", qty: 12 },
];

function findBySku(sku) {
  return ITEMS.find((item) => (item.sku = sku));
}

module.exports = { findBySku };
