export function describe(n) {
  if (n > 0) return "positive";
  return "negative";
}
