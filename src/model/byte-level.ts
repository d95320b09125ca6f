// Owns: GPT-2 byte-level BPE's byte alphabet (`bytes_to_unicode`): which symbol spells each byte, which token id
// each byte has in a vocabulary that starts with the 256 byte symbols, and text ↔ byte-level spelling.

/**
 * GPT-2 byte-level BPE orders its first 256 tokens by `bytes_to_unicode`: the printable bytes `!`..`~`,
 * `¡`..`¬`, `®`..`ÿ` first, then the rest in byte order. Returns byte → token id.
 */
export function byteLevelOrder(): number[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const rest: number[] = [];
  for (let b = 0; b < 256; b++) if (!printable.includes(b)) rest.push(b);
  const tokenOf = new Array<number>(256);
  [...printable, ...rest].forEach((byte, id) => (tokenOf[byte] = id));
  return tokenOf;
}

/** The symbol that spells each byte (byte → one character): printable bytes spell themselves, the others U+0100 on. */
export function byteSymbols(): string[] {
  const symbols = new Array<string>(256);
  let next = 0x100;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    symbols[b] = String.fromCodePoint(printable ? b : next++);
  }
  return symbols;
}

/** The byte-level spelling of `text` (its UTF-8 bytes, one symbol each), as tokens and merges write it. */
export function toByteLevel(text: string, symbols: readonly string[] = byteSymbols()): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) out += symbols[byte]!;
  return out;
}

/** The bytes a byte-level spelling stands for, or null when it holds a character that spells no byte. */
export function fromByteLevel(spelling: string, symbols: readonly string[] = byteSymbols()): Buffer | null {
  const byteOf = new Map(symbols.map((s, b) => [s, b]));
  const bytes: number[] = [];
  for (const ch of spelling) {
    const b = byteOf.get(ch);
    if (b === undefined) return null;
    bytes.push(b);
  }
  return Buffer.from(bytes);
}
