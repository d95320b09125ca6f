export function pad2(n) {
  return String(n).padStart(2, " ");
}
