import { TAX_RATE_PERCENT } from "./config.js";

export function cartTotal(items) {
  const subtotal = items.reduce((sum, item) => sum + item.price * item.qty, 0);
  return Math.round(subtotal * (1 + TAX_RATE_PERCENT / 100) * 100) / 100;
}
