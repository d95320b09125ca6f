// Owns: splitting a call's canonical arguments JSON into streaming fragments (never inside a surrogate pair).

/** Split `text` into pieces of at most `size` UTF-16 units; a surrogate pair is never cut. Empty text gives []. */
export function fragments(text: string, size: number): string[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`fragment size must be a whole number ≥ 1, got ${size}`);
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let j = Math.min(i + size, text.length);
    const c = text.charCodeAt(j - 1);
    if (j < text.length && c >= 0xd800 && c <= 0xdbff) j = j - 1 > i ? j - 1 : j + 1;
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

export const ADAPTER_DEFAULTS = Object.freeze({
  /** UTF-16 units of arguments JSON per streamed fragment. */
  fragmentSize: 64,
});
