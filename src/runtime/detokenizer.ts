// Owns: turning a stream of tokens into text without splitting a UTF-8 character across chunks.
// Byte-level BPE tokens may cut a character; a run of them may each end inside one (ធធធ spelled by tokens that
// straddle every character), so a count of tokens held back cannot bound the wait. The tokens' bytes go through
// one streaming UTF-8 decoder instead: it holds exactly the bytes of an unfinished character, and a byte sequence
// that is really invalid becomes U+FFFD at once (or at the end), which the parser reports (`invalid_utf8`).

export class StreamDetokenizer {
  // ignoreBOM: a U+FEFF the model writes first is text, not a byte-order mark to drop.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });

  constructor(private readonly bytesOf: (token: number) => Uint8Array) {}

  /** Add tokens; returns the text that is now final (may be ""). */
  push(tokens: readonly number[]): string {
    let out = "";
    for (const t of tokens) out += this.decoder.decode(this.bytesOf(t), { stream: true });
    return out;
  }

  /** Emit whatever is held back (an unfinished character becomes U+FFFD). */
  flush(): string {
    return this.decoder.decode();
  }
}
