export function describe(n) {
  if (n > 0) return "positive";
  if (n === 0) return "zero";
  return "negative";
}
