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
  const never: number[] = [];
  const specials: number[] = [];
  const lengthCounts: number[] = [];
  const slotCounts = new Int32Array(NON_ASCII + 1);
  // The slots one token holds, each once (stamped with the token's id + 1).
  const stamp = new Int32Array(NON_ASCII + 1);
  const eachSlot = (t: number, cps: Int32Array, visit: (slot: number) => void) => {
    for (const cp of cps) {
      const slot = Math.min(cp, NON_ASCII);
      if (stamp[slot] === t + 1) continue;
      stamp[slot] = t + 1;
      visit(slot);
    }
  };
  for (let t = 0; t < n; t++) {
    const cps = v.codePoints(t);
    if (v.isSpecial(t)) specials.push(t);
    else if (!cps) {
      if (!placed[t]) never.push(t);
    } else {
      lengthCounts[cps.length] = (lengthCounts[cps.length] ?? 0) + 1;
      eachSlot(t, cps, (slot) => slotCounts[slot]!++);
    }
  }
  const maxLength = lengthCounts.length - 1;
  // Counting sort by length: lengthStart[L] is where length L begins.
  const lengthStart = new Int32Array(maxLength + 2);
  for (let L = 1; L <= maxLength + 1; L++) lengthStart[L] = lengthStart[L - 1]! + (lengthCounts[L - 1] ?? 0);
  const byLength = new Int32Array(lengthStart[maxLength + 1]!);
  const placedAt = lengthStart.slice();
  const holding = Array.from(slotCounts, (c) => new Int32Array(c));
  const filled = new Int32Array(NON_ASCII + 1);
  stamp.fill(0);
  for (let t = 0; t < n; t++) {
    const cps = v.codePoints(t);
    if (!cps || v.isSpecial(t)) continue;
    byLength[placedAt[cps.length]!++] = t;
    eachSlot(t, cps, (slot) => (holding[slot]![filled[slot]!++] = t));
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
 * where fewer are allowed than banned (a string near its maxLength), exactly the allowed ones. `specials`: the
 * special tokens `at` allows.
 */
export function textMask(pool: StackPool, vocab: TextMaskVocab, at: StateId, specials: readonly number[]): NextTokens {
  const index = vocab.textIndex;
  const { depth, odd } = chainOf(pool, at, index.maxLength);
  // Tokens stepped on their own (those holding an odd character, and the cut ones): 1 taken, 2 refused.
  const verdict = new Uint8Array(index.vocabSize);
  const stepped: number[] = [];
  for (let slot = 0; slot <= NON_ASCII; slot++) {
    if (!(odd[slot >> 5]! & (1 << (slot & 31)))) continue;
    for (const t of index.holding[slot]!) {
      if (verdict[t]) continue;
      verdict[t] = takesWhole(pool, at, vocab.codePoints(t)!) ? 1 : 2;
      stepped.push(t);
    }
  }
  const from = { at, partial: undefined };
  for (const t of index.cutStarting) {
    verdict[t] = stepBytes(pool, from, vocab.bytes(t)!) ? 1 : 2;
    stepped.push(t);
  }
  // Plain tokens up to the chain's depth are taken; the rest of them are not.
  const plainUpTo = depth < index.maxLength ? index.lengthStart[depth + 1]! : index.byLength.length;
  if (plainUpTo * 2 < index.vocabSize) {
    const tokens = [...specials];
    for (let i = 0; i < plainUpTo; i++) if (verdict[index.byLength[i]!] !== 2) tokens.push(index.byLength[i]!);
    for (const t of stepped) if (verdict[t] === 1 && !(vocab.codePoints(t) && vocab.codePoints(t)!.length <= depth)) tokens.push(t);
    return { kind: "set", tokens };
  }
  const banned: number[] = [];
  for (const t of stepped) if (verdict[t] === 2) banned.push(t);
  for (let i = plainUpTo; i < index.byLength.length; i++) if (!verdict[index.byLength[i]!]) banned.push(index.byLength[i]!);
  for (const t of index.never) banned.push(t);
  const allowedSpecial = new Set(specials);
  for (const t of index.specials) if (!allowedSpecial.has(t)) banned.push(t);
  return { kind: "except", banned };
}
