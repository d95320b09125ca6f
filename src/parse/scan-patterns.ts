// Owns: the scanner's patterns (built once from the format definitions and shared) and the partial-tag
// test that decides what a stream must hold back.

import { QWEN3_TOKENS, type BareBlock, type ToolCallFormat } from "../formats/index.js";

/** Longest line start textHold must look at besides a bare block's opener: a newline and 16 spaces or tabs. */
const LINE_START = 1 + 16;
/** The fewest tail characters textHold looks at (a line start and a proper prefix of a 16-character opener). */
const MIN_TAIL_WINDOW = LINE_START + 16;
const THINK_OPEN = QWEN3_TOKENS.thinkOpen.text;
const THINK_CLOSE = QWEN3_TOKENS.thinkClose.text;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Patterns are built once per (tags, bare) and shared; every use sets lastIndex first (exec is synchronous).
export const FENCE_RE = /\n {0,3}(`{3,}|~{3,})[ \t\r]*/g;
export const FENCE_AT_START = / {0,3}(`{3,}|~{3,})/y;
export const THINK_RE = new RegExp(`(${esc(THINK_OPEN)})|${esc(THINK_CLOSE)}`, "g");
export interface Patterns {
  text: RegExp;
  /** A bare block opening at the stream's start (sticky); undefined without bare blocks. */
  bareAtStart: RegExp | undefined;
  tags: readonly string[];
  maxTagLen: number;
  /** How many tail characters textHold looks at: a line start and a bare opener's prefix, or a tag's prefix. */
  tailWindow: number;
}
const PATTERNS = new WeakMap<ToolCallFormat, { bare?: Patterns; plain?: Patterns }>();

/**
 * The patterns for a format's tags, with or without bare blocks. `bare` must be the same each time for one format
 * (a format's own bare block, or none).
 */
export function patternsFor(format: ToolCallFormat, bare: BareBlock | undefined): Patterns {
  let entry = PATTERNS.get(format);
  if (!entry) PATTERNS.set(format, (entry = {}));
  let p = bare ? entry.bare : entry.plain;
  if (!p) {
    const open = format.open.text;
    const close = format.close.text;
    const bareAlt = bare ? `\\n([ \\t]{0,16})(${esc(bare.open)})` : "(?!)()()";
    const text = new RegExp(`(${esc(open)})|(${esc(close)})|(${esc(THINK_OPEN)})|(${esc(THINK_CLOSE)})|${bareAlt}|\\n( {0,3})(\`{3,}|~{3,})`, "g");
    const bareAtStart = bare ? new RegExp(`([ \\t]{0,16})${esc(bare.open)}`, "y") : undefined;
    const tags = Object.freeze([open, close, THINK_OPEN, THINK_CLOSE]);
    const maxTagLen = Math.max(...tags.map((t) => t.length));
    const tailWindow = Math.max(MIN_TAIL_WINDOW, LINE_START + (bare?.open.length ?? 0), maxTagLen);
    p = Object.freeze({ text, bareAtStart, tags, maxTagLen, tailWindow });
    if (bare) entry.bare = p;
    else entry.plain = p;
  }
  return p;
}

/** Index where the longest proper prefix of `tag` that ends `buf` (at or after `from`) starts; buf.length if none. */
export function partialSuffix(buf: string, from: number, tag: string): number {
  const first = tag.charCodeAt(0);
  for (let k = buf.length - 1, stop = Math.max(from, buf.length - tag.length + 1); k >= stop; k--) {
    if (buf.charCodeAt(k) === first) return tag.startsWith(buf.slice(k)) ? k : buf.length;
  }
  return buf.length;
}
