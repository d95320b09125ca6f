const { findBySku } = require("./store.js");

function stockOf(sku) {
  const item = findBySku(sku);
  return item ? item.qty : 0;
}

module.exports = { stockOf };
