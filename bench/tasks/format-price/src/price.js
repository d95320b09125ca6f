export function formatPrice(cents) {
  return "$" + cents / 100;
}
