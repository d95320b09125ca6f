// Owns: the exact mask where free text may come next (string contents, raw parameter values, keys), without walking
// the whole trie: there almost every token is allowed, and a state treats almost every character alike. Each state
// has a plain successor (where `a` leads) and its odd characters (those that lead elsewhere: a closing quote, a
// backslash, a control character, the `<` of a closing tag). Following plain successors gives a chain; a token
// holding no character odd anywhere on the chain is allowed exactly when it is no longer than the chain (a
// maxLength string's count), and every other token is stepped on its own. The index it needs is built once per
// vocabulary.

import type { NextTokens } from "./matcher.js";
import { DEAD, type StackPool, type StateId } from "./stack-pool.js";
import { stepBytes } from "./utf8-steps.js";

/** The character probe a plain successor is read from (every free-text state takes it). */
const PLAIN_PROBE = 0x61;
/** Odd-character slots: one per ASCII character, and one for every non-ASCII character at once. */
const NON_ASCII = 128;
const ODD_WORDS = 5;

/** What the vocabulary answers for exact text masks (built once per vocabulary; see buildTextIndex). */
export interface TextIndex {
  readonly vocabSize: number;
  /** Whole-UTF-8 text tokens by their length in code points, shortest first. */
  readonly byLength: Int32Array;
  /** lengthStart[L]: the index in byLength of the first token longer than L - 1 code points (L ≤ maxLength + 1). */
  readonly lengthStart: Int32Array;
  /** The longest whole text token, in code points. */
  readonly maxLength: number;
  /** Per odd slot (ASCII character, then non-ASCII), the whole text tokens holding it. */
  readonly holding: readonly Int32Array[];
  /** Tokens that cut a character and begin where one may (stepped byte by byte, each on its own). */
  readonly cutStarting: Int32Array;
  /** Tokens no position where a character begins takes: not text, not special, or beginning inside a character. */
  readonly never: Int32Array;
  /** Every special token (added tokens, end of generation). */
  readonly specials: Int32Array;
}

/** What buildTextIndex reads of a vocabulary. */
export interface TextIndexSource {
  vocabSize: number;
  codePoints(token: number): Int32Array | undefined;
  isSpecial(token: number): boolean;
  /** Tokens that cut a character and begin where one may. */
  cutStarting: Iterable<number>;
}

export function buildTextIndex(v: TextIndexSource): TextIndex {
  const n = v.vocabSize;
  const cutStarting = Int32Array.from(v.cutStarting);
  const placed = new Uint8Array(n);
  for (const t of cutStarting) placed[t] = 1;
  const whole: number[] = [];
  const never: number[] = [];
  const specials: number[] = [];
  const counts = Array.from({ length: NON_ASCII + 1 }, () => 0);
  let maxLength = 0;
  for (let t = 0; t < n; t++) {
    if (v.isSpecial(t)) specials.push(t);
    else if (v.codePoints(t)) whole.push(t);
    else if (!placed[t]) never.push(t);
  }
  const slotsOf = (cps: Int32Array): Set<number> => new Set(Array.from(cps, (cp) => Math.min(cp, NON_ASCII)));
  for (const t of whole) {
    const cps = v.codePoints(t)!;
    maxLength = Math.max(maxLength, cps.length);
    for (const s of slotsOf(cps)) counts[s]!++;
  }
  const holding = counts.map((c) => new Int32Array(c));
  const filled = counts.map(() => 0);
  for (const t of whole) for (const s of slotsOf(v.codePoints(t)!)) holding[s]![filled[s]!++] = t;
  const byLength = Int32Array.from(whole).sort((a, b) => v.codePoints(a)!.length - v.codePoints(b)!.length || a - b);
  const lengthStart = new Int32Array(maxLength + 2);
  for (let L = 0, i = 0; L <= maxLength + 1; L++) {
    while (i < byLength.length && v.codePoints(byLength[i]!)!.length < L) i++;
    lengthStart[L] = i;
  }
  return { vocabSize: n, byLength, lengthStart, maxLength, holding, cutStarting, never: Int32Array.from(never), specials: Int32Array.from(specials) };
}

/** One state's link in the chain: its plain successor, and the slots of the characters that lead elsewhere. */
interface Link {
  plain: StateId;
  odd: Uint32Array;
}

/** Links per pool and state (a pool is one compiled grammar; the links live as long as it does). */
const linksOf = new WeakMap<StackPool, Map<StateId, Link>>();

function linkOf(pool: StackPool, at: StateId): Link {
  let links = linksOf.get(pool);
  if (!links) linksOf.set(pool, (links = new Map()));
  const known = links.get(at);
  if (known) return known;
  const plain = pool.step(at, PLAIN_PROBE);
  const odd = new Uint32Array(ODD_WORDS);
  for (let c = 0; c < NON_ASCII; c++) if (pool.step(at, c) !== plain) odd[c >> 5]! |= 1 << (c & 31);
  if (pool.targetOver(at, 0x80, 0x10ffff) !== plain) odd[NON_ASCII >> 5]! |= 1 << (NON_ASCII & 31);
  const link = { plain, odd };
  links.set(at, link);
  return link;
}

/**
 * The chain from `at`: how many plain characters may follow (Infinity when the chain cycles or outlasts every
 * token), and the union of the odd slots of its states (each state a token of plain characters could reach).
 */
function chainOf(pool: StackPool, at: StateId, maxLength: number): { depth: number; odd: Uint32Array } {
  const odd = new Uint32Array(ODD_WORDS);
  const seen = new Set<StateId>();
  let s = at;
  for (let i = 0; i < maxLength; i++) {
    const link = linkOf(pool, s);
    for (let w = 0; w < ODD_WORDS; w++) odd[w]! |= link.odd[w]!;
    if (link.plain === DEAD) return { depth: i, odd };
    seen.add(s);
    if (seen.has(link.plain)) break;
    s = link.plain;
  }
  return { depth: Infinity, odd };
}

/** Whether `at` takes the whole text token `cps` (each code point a cached step). */
function takesWhole(pool: StackPool, at: StateId, cps: Int32Array): boolean {
  for (let i = 0; i < cps.length && at !== DEAD; i++) at = pool.step(at, cps[i]!);
  return at !== DEAD;
}

/** What textMask reads of the vocabulary beside its index. */
export interface TextMaskVocab {
  readonly textIndex: TextIndex;
  codePoints(token: number): Int32Array | undefined;
  bytes(token: number): Uint8Array | undefined;
}

/**
 * The exact next tokens at `at` (no character pending), where `a` is taken: every token but the banned ones, or,
 * where fewer are allowed than banned, exactly the allowed ones. `specials`: the special tokens `at` allows.
 */
export function textMask(pool: StackPool, vocab: TextMaskVocab, at: StateId, specials: readonly number[]): NextTokens {
  const index = vocab.textIndex;
  const { depth, odd } = chainOf(pool, at, index.maxLength);
  // Stamps: 1 a candidate stepped on its own, 2 banned.
  const mark = new Uint8Array(index.vocabSize);
  const banned: number[] = [];
  const ban = (t: number) => {
    mark[t] = 2;
    banned.push(t);
  };
  for (let slot = 0; slot <= NON_ASCII; slot++) {
    if (!(odd[slot >> 5]! & (1 << (slot & 31)))) continue;
    for (const t of index.holding[slot]!) {
      if (mark[t]) continue;
      if (takesWhole(pool, at, vocab.codePoints(t)!)) mark[t] = 1;
      else ban(t);
    }
  }
  const from = { at, partial: undefined };
  for (const t of index.cutStarting) if (!stepBytes(pool, from, vocab.bytes(t)!)) ban(t);
  if (depth < index.maxLength) {
    const { byLength, lengthStart } = index;
    for (let i = lengthStart[depth + 1]!; i < byLength.length; i++) if (!mark[byLength[i]!]) ban(byLength[i]!);
  }
  for (const t of index.never) ban(t);
  const allowedSpecial = new Set(specials);
  for (const t of index.specials) if (!allowedSpecial.has(t)) ban(t);
  if (banned.length * 2 <= index.vocabSize) return { kind: "except", banned: banned.sort((a, b) => a - b) };
  const tokens: number[] = [];
  for (let t = 0; t < index.vocabSize; t++) if (mark[t] !== 2) tokens.push(t);
  return { kind: "set", tokens };
}
