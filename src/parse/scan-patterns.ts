// Owns: the scanner's patterns (built once from the format definitions and shared) and the partial-tag
// test that decides what a stream must hold back.

import { QWEN3_TOKENS, qwen3coder, type ToolCallFormat, type XmlBody } from "../formats/index.js";

/** Longest tail textHold must look at: a newline, 16 spaces or tabs and a proper prefix of `<function=`. */
export const TAIL_WINDOW = 1 + 16 + 16;
const X = qwen3coder.body as XmlBody;
const THINK_OPEN = QWEN3_TOKENS.thinkOpen.text;
const THINK_CLOSE = QWEN3_TOKENS.thinkClose.text;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Patterns are built once per (tags, bare) and shared; every use sets lastIndex first (exec is synchronous).
export const FENCE_RE = /\n {0,3}(`{3,}|~{3,})[ \t\r]*/g;
export const FENCE_AT_START = / {0,3}(`{3,}|~{3,})/y;
export const BARE_AT_START = new RegExp(`([ \\t]{0,16})${esc(X.functionOpen)}`, "y");
export const THINK_RE = new RegExp(`(${esc(THINK_OPEN)})|${esc(THINK_CLOSE)}`, "g");
export interface Patterns {
  text: RegExp;
  tags: readonly string[];
  maxTagLen: number;
}
const PATTERNS = new WeakMap<ToolCallFormat, { bare?: Patterns; plain?: Patterns }>();

export function patternsFor(format: ToolCallFormat, bare: boolean): Patterns {
  let entry = PATTERNS.get(format);
  if (!entry) PATTERNS.set(format, (entry = {}));
  let p = bare ? entry.bare : entry.plain;
  if (!p) {
    const open = format.open.text;
    const close = format.close.text;
    const bareAlt = bare ? `\\n([ \\t]{0,16})(${esc(X.functionOpen)})` : "(?!)()()";
    const text = new RegExp(`(${esc(open)})|(${esc(close)})|(${esc(THINK_OPEN)})|(${esc(THINK_CLOSE)})|${bareAlt}|\\n( {0,3})(\`{3,}|~{3,})`, "g");
    const tags = Object.freeze([open, close, THINK_OPEN, THINK_CLOSE]);
    p = Object.freeze({ text, tags, maxTagLen: Math.max(...tags.map((t) => t.length)) });
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
