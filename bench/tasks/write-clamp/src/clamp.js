// Return value limited to [min, max].
export function clamp(value, min, max) {
  throw new Error("not implemented");
}
