// Owns: collecting streamed text with its outer whitespace trimmed, so that the deltas a stream emits
// concatenate to exactly the final (trimmed) `content` / `reasoning`, whatever the chunking.

/**
 * Leading whitespace is dropped; trailing whitespace is held back and only emitted once more visible text
 * follows (so whitespace around removed call blocks never ends a stream's text).
 */
export class TrimmedText {
  private text = "";
  private started = false;
  private held = "";

  /** Add raw text; returns the delta to emit now ("" for none). */
  push(text: string): string {
    let end = text.length;
    while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
    if (end === 0) {
      if (this.started) this.held += text;
      return "";
    }
    let out: string;
    if (this.started) {
      out = this.held === "" ? text.slice(0, end) : this.held + text.slice(0, end);
    } else {
      let start = 0;
      while (isSpace(text.charCodeAt(start))) start++;
      out = text.slice(start, end);
      this.started = true;
    }
    this.held = end === text.length ? "" : text.slice(end);
    this.text += out;
    return out;
  }

  /** Everything emitted so far. */
  value(): string {
    return this.text;
  }
}

/** The characters String.prototype.trim removes. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
