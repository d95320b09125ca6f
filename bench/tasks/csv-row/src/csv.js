export function toCsvRow(values) {
  return values.map((v) => String(v)).join(",");
}
