export function inRange(x, lo, hi) {
  return x >= lo && x <= hi;
}
