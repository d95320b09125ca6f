// Owns: the bytes a GBNF grammar's terminals can ever match, read from its text once, so the jump-forward
// prober skips single-byte probes that llama.cpp could never accept (a forced byte of an enum of ASCII strings
// was proven unique with 257 probes, most of them for bytes no rule mentions).

/** Bytes a grammar may match: `mask[b]` is 1 when byte `b` can be the first byte of some token it accepts. */
export type ByteMask = Uint8Array;

const ALL = (): ByteMask => new Uint8Array(256).fill(1);

/** One char of a literal or class at `i` (escapes as llama.cpp's parser reads them): [code point, next index]. */
function readChar(src: string, i: number): [number, number] | undefined {
  if (src[i] !== "\\") {
    const cp = src.codePointAt(i);
    return cp === undefined ? undefined : [cp, i + (cp > 0xffff ? 2 : 1)];
  }
  const e = src[i + 1];
  const simple: Record<string, number> = { n: 10, r: 13, t: 9, "\\": 92, '"': 34, "[": 91, "]": 93, "-": 45 };
  if (e !== undefined && e in simple) return [simple[e]!, i + 2];
  const width = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
  const hex = src.slice(i + 2, i + 2 + width);
  if (width === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) return undefined;
  return [parseInt(hex, 16), i + 2 + width];
}

/** Marks a code point's first byte; any non-ASCII one marks every high byte (a partial UTF-8 sequence may follow). */
function mark(mask: ByteMask, cp: number): void {
  if (cp < 0x80) mask[cp] = 1;
  else mask.fill(1, 0x80);
}

/** A `"…"` literal from `i` (at the quote); the index after it, or undefined when it cannot be read. */
function literal(src: string, i: number, mask: ByteMask): number | undefined {
  let j = i + 1;
  while (j < src.length && src[j] !== '"') {
    const c = readChar(src, j);
    if (!c) return undefined;
    mark(mask, c[0]);
    j = c[1];
  }
  return j < src.length ? j + 1 : undefined;
}

/** A `[…]` class from `i`; a negated class may match almost anything, so it is read as "every byte". */
function charClass(src: string, i: number, mask: ByteMask): number | "all" | undefined {
  if (src[i + 1] === "^") return "all";
  let j = i + 1;
  while (j < src.length && src[j] !== "]") {
    const lo = readChar(src, j);
    if (!lo) return undefined;
    j = lo[1];
    let hi = lo[0];
    if (src[j] === "-" && src[j + 1] !== "]") {
      const h = readChar(src, j + 1);
      if (!h) return undefined;
      hi = h[0];
      j = h[1];
    }
    for (let cp = lo[0]; cp <= Math.min(hi, 0x7f); cp++) mask[cp] = 1;
    if (hi >= 0x80) mask.fill(1, 0x80);
  }
  return j < src.length ? j + 1 : undefined;
}

/**
 * The bytes `gbnf`'s terminals can match (literals and classes; `<[id]>` special tokens are probed apart). Every
 * byte when the text holds something this reader does not narrow (a negated class, `.`, `!` token negation, an
 * escape it does not know): then nothing is skipped.
 */
export function grammarBytes(gbnf: string): ByteMask {
  const mask = new Uint8Array(256);
  let i = 0;
  while (i < gbnf.length) {
    const c = gbnf[i]!;
    if (c === "#") {
      const nl = gbnf.indexOf("\n", i);
      i = nl < 0 ? gbnf.length : nl + 1;
    } else if (c === '"') {
      const next = literal(gbnf, i, mask);
      if (next === undefined) return ALL();
      i = next;
    } else if (c === "[") {
      const next = charClass(gbnf, i, mask);
      if (next === undefined || next === "all") return ALL();
      i = next;
    } else if (c === "<") {
      const end = /^<\[\d+\]>/.exec(gbnf.slice(i, i + 16));
      if (!end) return ALL();
      i += end[0].length;
    } else if (c === "." || c === "!") return ALL();
    else i++;
  }
  return mask;
}
