// Owns: collecting streamed text with its outer whitespace trimmed, so that the deltas a stream emits
// concatenate to exactly the final (trimmed) `content` / `reasoning`, whatever the chunking.

/**
 * Leading whitespace is dropped; trailing whitespace is held back and only emitted once more visible text
 * follows (so whitespace around removed call blocks never ends a stream's text). `section()` starts a new
 * section: its own leading whitespace is dropped too, and `separator` goes between it and the earlier text.
 */
export class TrimmedText {
  /** Emitted pieces, joined once at the end (a long chain of `+=` ropes burdens the GC). */
  private parts: string[] = [];
  private started = false;
  private held = "";
  /** Dropping leading whitespace (start of the text or of a section). */
  private leading = true;
  private separator = "";

  /** Add raw text; returns the delta to emit now ("" for none). */
  push(chunk: string): string {
    let end = chunk.length;
    while (end > 0 && isSpace(chunk.charCodeAt(end - 1))) end--;
    if (end === 0) {
      if (!this.leading) this.held += chunk;
      return "";
    }
    let out: string;
    if (this.leading) {
      let start = 0;
      while (isSpace(chunk.charCodeAt(start))) start++;
      out = this.separator + chunk.slice(start, end);
      this.leading = false;
      this.separator = "";
    } else {
      out = this.held === "" ? chunk.slice(0, end) : this.held + chunk.slice(0, end);
    }
    this.held = end === chunk.length ? "" : chunk.slice(end);
    this.parts.push(out);
    this.started = true;
    return out;
  }

  /** Start a new section after the text so far (no effect before any visible text). */
  section(separator: string): void {
    if (!this.started) return;
    this.leading = true;
    this.held = "";
    this.separator = separator;
  }

  /** Everything emitted so far. */
  value(): string {
    if (this.parts.length > 1) this.parts = [this.parts.join("")];
    return this.parts[0] ?? "";
  }
}

/** The characters String.prototype.trim removes. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
