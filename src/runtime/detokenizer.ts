// Owns: turning a stream of tokens into text without splitting a UTF-8 character across chunks.
// Byte-level BPE tokens may hold part of a character; detokenizing them alone gives U+FFFD. Tokens are held
// back while the decoded text ends in U+FFFD (an incomplete character may be completed by the next token);
// a byte sequence that is really invalid stays U+FFFD, is emitted, and the parser reports it (`invalid_utf8`).

const REPLACEMENT = "\uFFFD";
/** A UTF-8 character has at most 4 bytes, so after this many tokens a trailing U+FFFD is never completed. */
const MAX_PENDING_TOKENS = 8;

export class StreamDetokenizer {
  private pending: number[] = [];
  /** Characters of detokenize(pending) already emitted. */
  private emitted = 0;

  constructor(private readonly detokenize: (tokens: number[]) => string) {}

  /** Add tokens; returns the text that is now final (may be ""). */
  push(tokens: readonly number[]): string {
    if (tokens.length === 0) return "";
    this.pending.push(...tokens);
    const text = this.detokenize(this.pending);
    let stable = text.length;
    while (stable > 0 && text[stable - 1] === REPLACEMENT) stable--;
    if (stable === text.length || this.pending.length >= MAX_PENDING_TOKENS) {
      const out = text.slice(this.emitted);
      this.pending = [];
      this.emitted = 0;
      return out;
    }
    if (stable <= this.emitted) return "";
    const out = text.slice(this.emitted, stable);
    this.emitted = stable;
    return out;
  }

  /** Emit whatever is held back (an incomplete character stays U+FFFD). */
  flush(): string {
    if (this.pending.length === 0) return "";
    const out = this.detokenize(this.pending).slice(this.emitted);
    this.pending = [];
    this.emitted = 0;
    return out;
  }
}
