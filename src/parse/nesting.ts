// Owns: bounding nesting before anything recursive runs: one iterative pass that tells whether the brackets of
// a JSON (or Python-literal) text nest deeper than a limit, and the well-formed-Unicode test for strings.

/**
 * Whether `[`/`{` (and `(` when `python`) nest deeper than `limit` outside strings. Iterative, stops early.
 * Strings are `"…"` (and `'…'` when `python`), with backslash escapes; an unclosed string ends the scan.
 */
export function nestsDeeper(text: string, limit: number, python = false): boolean {
  let depth = 0;
  let quote = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 0x5c) i++;
      else if (c === quote) quote = 0;
    } else if (c === 0x22 || (python && c === 0x27)) quote = c;
    else if (c === 0x5b || c === 0x7b || (python && c === 0x28)) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d || (python && c === 0x29)) depth--;
  }
  return false;
}

/**
 * False when `s` holds a lone surrogate (a JSON `\ud800` escape decodes to one). Such a string cannot be written
 * as UTF-8: a tool would receive U+FFFD instead of what the call says.
 */
export function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}
