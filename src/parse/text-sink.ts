// Owns: collecting streamed text with its outer whitespace trimmed, so that the deltas a stream emits
// concatenate to exactly the final (trimmed) `content` / `reasoning`, whatever the chunking; or, for an answer a
// constraint holds, kept exactly as written (issue 52: whitespace the constraint requires is part of the answer).

/**
 * Leading whitespace is dropped; trailing whitespace is held back and only emitted once more visible text
 * follows (so whitespace around removed call blocks never ends a stream's text). `section()` starts a new
 * section: its own leading whitespace is dropped too, and `separator` goes between it and the earlier text.
 */
export class TrimmedText {
  /**
   * `exact`: nothing of the text is trimmed but what is not the answer's: whitespace next to a call block (the
   * format's framing between blocks) and the blank line the template writes after `</think>`. Whitespace is still
   * held until visible text follows, or until the end when no call block came after it (see `end`).
   */
  constructor(private readonly exact = false) {}
  /** Emitted pieces, joined once at the end (a long chain of `+=` ropes burdens the GC). */
  private parts: string[] = [];
  private started = false;
  private held = "";
  /** Dropping leading whitespace (start of the text or of a section). */
  private leading = true;
  private separator = "";
  /** Exact: what is left of the template's blank line after `</think>`, skipped where the answer starts. */
  private skip = "";
  /** Exact: a call block came after the last visible text (the whitespace held since is framing). */
  private afterBlock = false;

  /** Add raw text; returns the delta to emit now ("" for none). */
  push(chunk: string): string {
    if (this.exact) return this.pushExact(chunk);
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

  private pushExact(chunk: string): string {
    if (this.skip !== "") {
      let n = 0;
      while (n < chunk.length && n < this.skip.length && chunk[n] === this.skip[n]) n++;
      this.skip = n === chunk.length ? this.skip.slice(n) : "";
      chunk = chunk.slice(n);
    }
    let end = chunk.length;
    while (end > 0 && isSpace(chunk.charCodeAt(end - 1))) end--;
    if (end === 0) {
      this.held += chunk;
      return "";
    }
    const out = this.held + chunk.slice(0, end);
    this.held = chunk.slice(end);
    this.afterBlock = false;
    this.parts.push(out);
    this.started = true;
    return out;
  }

  /** Exact: a call block was cut out here; the whitespace held before it was its framing. */
  block(): void {
    if (!this.exact) return;
    this.held = "";
    this.afterBlock = true;
  }

  /** Exact: a think block comes before any answer text; the template's blank line after its `</think>` is not the answer's. */
  afterThink(): void {
    if (this.exact && !this.started && this.held === "") this.skip = "\n\n";
  }

  /** The output is over: exact text emits the whitespace it held unless a call block came after it. */
  end(): string {
    if (!this.exact || this.held === "" || this.afterBlock) return "";
    const out = this.held;
    this.held = "";
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
