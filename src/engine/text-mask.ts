// Owns: the exact mask where free text may come next (string contents, raw parameter values, keys), without walking
// the whole trie: there almost every token is allowed, and a state treats almost every character alike. Each state
// has a plain successor (where `a` leads) and its odd characters (those that lead elsewhere: a closing quote, a
// backslash, a control character, the `<` of a closing tag). Following plain successors gives a chain; a token
// holding no character odd anywhere on the chain is allowed exactly when it is no longer than the chain (a
// maxLength string's count), and every other token is stepped on its own. A token that cuts a character at its end
// counts the unfinished one as a non-ASCII character (a state that takes every non-ASCII character alike takes
// some completion of it). The index it needs is built once per vocabulary.

import type { NextTokens } from "./matcher.js";
import { DEAD, type StackPool, type StateId } from "./stack-pool.js";
import { stepBytes } from "./utf8-steps.js";

/** The character probe a plain successor is read from (every free-text state takes it). */
const PLAIN_PROBE = 0x61;
/** Odd-character slots: one per ASCII character, and one for every non-ASCII character at once. */
const NON_ASCII = 128;
const ODD_WORDS = 5;
/** Past a quarter of the vocabulary to step one by one, a text mask leaves the state to the trie walk. */
const ODD_SHARE_LIMIT = 4;

/** What the vocabulary answers for exact text masks (built once per vocabulary; see buildTextIndex). */
export interface TextIndex {
  readonly vocabSize: number;
  /**
   * Text tokens by their length in characters, shortest first: whole UTF-8 ones, and those that cut a character
   * at their end where it can still become one (it counts as one non-ASCII character).
   */
  readonly byLength: Int32Array;
  /** lengthStart[L]: the index in byLength of the first token longer than L - 1 characters (L ≤ maxLength + 1). */
  readonly lengthStart: Int32Array;
  /** Each token's length in byLength (0: not there). */
  readonly lengthOf: Uint16Array;
  /** The longest token of byLength, in characters. */
  readonly maxLength: number;
  /** Per odd slot (ASCII character, then non-ASCII), the tokens of byLength holding it. */
  readonly holding: readonly Int32Array[];
  /** Tokens that cut a character, begin where one may, and are not in byLength (stepped byte by byte, each on its own). */
  readonly oddCut: Int32Array;
  /** Tokens no position where a character begins takes: not text, not special, or beginning inside a character. */
  readonly never: Int32Array;
  /** Every special token (added tokens, end of generation). */
  readonly specials: Int32Array;
}

/** What buildTextIndex reads of a vocabulary. */
export interface TextIndexSource {
  vocabSize: number;
  codePoints(token: number): Int32Array | undefined;
  bytes(token: number): Uint8Array | undefined;
  isSpecial(token: number): boolean;
  /** Tokens that cut a character and begin where one may. */
  cutStarting: Iterable<number>;
}

/** The least code point of each width (a smaller one is an overlong spelling). */
const LEAST = [0, 0, 0x80, 0x800, 0x10000];

/**
 * A cut token as characters: its whole ones, then a non-ASCII stand-in for the one it leaves unfinished; undefined
 * where that one can become no character (only surrogates, past U+10FFFF, overlong) or the bytes are broken.
 */
export function cutAsCharacters(bytes: Uint8Array): Int32Array | undefined {
  const cps: number[] = [];
  let cp = 0;
  let need = 0;
  let width = 0;
  for (const b of bytes) {
    if (need === 0) {
      if (b < 0x80) cps.push(b);
      else if (b >= 0xc2 && b <= 0xf4) {
        need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
        width = need + 1;
        cp = b & (0x3f >> need);
      } else return undefined;
      continue;
    }
    if ((b & 0xc0) !== 0x80) return undefined;
    cp = (cp << 6) | (b & 0x3f);
    if (--need === 0) cps.push(cp);
  }
  if (need === 0) return undefined;
  const span = 2 ** (6 * need);
  const lo = Math.max(cp * span, LEAST[width]!);
  const hi = Math.min(cp * span + span - 1, 0x10ffff);
  const someCharacter = lo <= hi && (lo < 0xd800 || hi > 0xdfff);
  return someCharacter ? Int32Array.from([...cps, NON_ASCII]) : undefined;
}

export function buildTextIndex(v: TextIndexSource): TextIndex {
  const n = v.vocabSize;
  // Each text token's characters: its code points, or a cut one's (cutAsCharacters).
  const chars = new Array<Int32Array | undefined>(n);
  const oddCut: number[] = [];
  const placed = new Uint8Array(n);
  for (const t of v.cutStarting) {
    placed[t] = 1;
    const asChars = cutAsCharacters(v.bytes(t)!);
    if (asChars) chars[t] = asChars;
    else oddCut.push(t);
  }
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
    if (v.isSpecial(t)) {
      specials.push(t);
      continue;
    }
    const cps = (chars[t] ??= v.codePoints(t));
    if (!cps) {
      if (!placed[t]) never.push(t);
      continue;
    }
    lengthCounts[cps.length] = (lengthCounts[cps.length] ?? 0) + 1;
    eachSlot(t, cps, (slot) => slotCounts[slot]!++);
  }
  const maxLength = lengthCounts.length - 1;
  // Counting sort by length: lengthStart[L] is where length L begins.
  const lengthStart = new Int32Array(maxLength + 2);
  for (let L = 1; L <= maxLength + 1; L++) lengthStart[L] = lengthStart[L - 1]! + (lengthCounts[L - 1] ?? 0);
  const byLength = new Int32Array(lengthStart[maxLength + 1]!);
  const lengthOf = new Uint16Array(n);
  const placedAt = lengthStart.slice();
  const holding = Array.from(slotCounts, (c) => new Int32Array(c));
  const filled = new Int32Array(NON_ASCII + 1);
  stamp.fill(0);
  for (let t = 0; t < n; t++) {
    const cps = chars[t];
    if (!cps || v.isSpecial(t)) continue;
    byLength[placedAt[cps.length]!++] = t;
    lengthOf[t] = cps.length;
    eachSlot(t, cps, (slot) => (holding[slot]![filled[slot]!++] = t));
  }
  return { vocabSize: n, byLength, lengthStart, lengthOf, maxLength, holding, oddCut: Int32Array.from(oddCut), never: Int32Array.from(never), specials: Int32Array.from(specials) };
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
 * token), the union of the odd slots of its states (each state a token of plain characters could reach), and
 * whether plain characters lead from `at` back to itself (an unbounded string).
 */
function chainOf(pool: StackPool, at: StateId, maxLength: number): { depth: number; odd: Uint32Array; loops: boolean } {
  const odd = new Uint32Array(ODD_WORDS);
  const seen = new Set<StateId>();
  let s = at;
  for (let i = 0; i < maxLength; i++) {
    const link = linkOf(pool, s);
    for (let w = 0; w < ODD_WORDS; w++) odd[w]! |= link.odd[w]!;
    if (link.plain === DEAD) return { depth: i, odd, loops: false };
    seen.add(s);
    if (seen.has(link.plain)) return { depth: Infinity, odd, loops: link.plain === at && i === 0 };
    s = link.plain;
  }
  return { depth: Infinity, odd, loops: false };
}

/** Whole tokens holding an odd character, by their tail (the text from the first odd character on), grouped by its first character. */
interface Tails {
  groups: { first: number; tails: Int32Array[]; tokens: number[][] }[];
  /** Cut tokens holding an odd character (stepped byte by byte). */
  cut: number[];
}

/** Tails per vocabulary index and odd set (a JSON string's odd set is the same in every string of every grammar). */
const tailsCache = new WeakMap<TextIndex, Map<string, Tails>>();

function tailsOf(index: TextIndex, vocab: TextMaskVocab, odd: Uint32Array): Tails {
  let byOdd = tailsCache.get(index);
  if (!byOdd) tailsCache.set(index, (byOdd = new Map()));
  const key = odd.join(",");
  const known = byOdd.get(key);
  if (known) return known;
  const isOdd = (cp: number) => (odd[Math.min(cp, NON_ASCII) >> 5]! & (1 << (Math.min(cp, NON_ASCII) & 31))) !== 0;
  const seen = new Uint8Array(index.vocabSize);
  const byTail = new Map<string, { tail: Int32Array; tokens: number[] }>();
  const cut: number[] = [];
  for (let slot = 0; slot <= NON_ASCII; slot++) {
    if (!(odd[slot >> 5]! & (1 << (slot & 31)))) continue;
    for (const t of index.holding[slot]!) {
      if (seen[t]) continue;
      seen[t] = 1;
      const cps = vocab.codePoints(t);
      if (!cps) {
        cut.push(t);
        continue;
      }
      let i = 0;
      while (!isOdd(cps[i]!)) i++;
      const tail = cps.subarray(i);
      const text = String.fromCodePoint(...tail);
      const entry = byTail.get(text);
      if (entry) entry.tokens.push(t);
      else byTail.set(text, { tail, tokens: [t] });
    }
  }
  const groups = new Map<number, Tails["groups"][number]>();
  for (const { tail, tokens } of byTail.values()) {
    let group = groups.get(tail[0]!);
    if (!group) groups.set(tail[0]!, (group = { first: tail[0]!, tails: [], tokens: [] }));
    group.tails.push(tail);
    group.tokens.push(tokens);
  }
  const tails = { groups: [...groups.values()], cut };
  byOdd.set(key, tails);
  return tails;
}

/** What textMask reads of the vocabulary beside its index. */
export interface TextMaskVocab {
  readonly textIndex: TextIndex;
  codePoints(token: number): Int32Array | undefined;
  bytes(token: number): Uint8Array | undefined;
}

/** Tokens holding an odd character (counted once per slot: an upper bound), what a text mask steps one by one. */
function oddTokens(index: TextIndex, odd: Uint32Array): number {
  let n = 0;
  for (let slot = 0; slot <= NON_ASCII; slot++) if (odd[slot >> 5]! & (1 << (slot & 31))) n += index.holding[slot]!.length;
  return n;
}

/**
 * The exact next tokens at `at` (no character pending), where `a` is taken: every token but the banned ones, or,
 * where fewer are allowed than banned (a string near its maxLength), exactly the allowed ones. `specials`: the
 * special tokens `at` allows. Undefined where most tokens hold an odd character (a name or an enum value where `a`
 * and `e` may both begin one): there the trie walk, which visits only what the grammar allows, costs less.
 */
export function textMask(pool: StackPool, vocab: TextMaskVocab, at: StateId, specials: readonly number[]): NextTokens | undefined {
  const index = vocab.textIndex;
  const { depth, odd, loops } = chainOf(pool, at, index.maxLength);
  if (oddTokens(index, odd) * ODD_SHARE_LIMIT > index.vocabSize) return undefined;
  const isOdd = (cp: number) => (odd[Math.min(cp, NON_ASCII) >> 5]! & (1 << (Math.min(cp, NON_ASCII) & 31))) !== 0;
  const from = { at, partial: undefined };
  // Where plain characters lead back to `at`, a token's plain head is skipped: it is stepped from its first odd character.
  const takes = (t: number): boolean => {
    const cps = vocab.codePoints(t);
    if (!cps) return stepBytes(pool, from, vocab.bytes(t)!) !== undefined;
    let i = 0;
    if (loops) while (i < cps.length && !isOdd(cps[i]!)) i++;
    let s = at;
    for (; i < cps.length && s !== DEAD; i++) s = pool.step(s, cps[i]!);
    return s !== DEAD;
  };
  // Tokens stepped on their own (those holding an odd character, and odd cut ones): 1 taken, 2 refused.
  const verdict = new Uint8Array(index.vocabSize);
  const stepped: number[] = [];
  const judge = (t: number) => {
    verdict[t] = takes(t) ? 1 : 2;
    stepped.push(t);
  };
  if (loops) {
    // Tokens that share their tail share their verdict; a tail whose first character `at` refuses is never stepped.
    const tails = tailsOf(index, vocab, odd);
    for (const group of tails.groups) {
      const next = pool.step(at, group.first);
      for (let k = 0; k < group.tails.length; k++) {
        const tail = group.tails[k]!;
        let s = next;
        for (let i = 1; i < tail.length && s !== DEAD; i++) s = pool.step(s, tail[i]!);
        const v = s === DEAD ? 2 : 1;
        for (const t of group.tokens[k]!) {
          verdict[t] = v;
          stepped.push(t);
        }
      }
    }
    for (const t of tails.cut) judge(t);
  } else {
    for (let slot = 0; slot <= NON_ASCII; slot++) {
      if (!(odd[slot >> 5]! & (1 << (slot & 31)))) continue;
      for (const t of index.holding[slot]!) if (!verdict[t]) judge(t);
    }
  }
  for (const t of index.oddCut) judge(t);
  // Plain tokens up to the chain's depth are taken; the rest of them are not.
  const { byLength, lengthOf } = index;
  const plainUpTo = depth < index.maxLength ? index.lengthStart[depth + 1]! : byLength.length;
  if (plainUpTo * 2 < index.vocabSize) {
    const tokens = [...specials];
    for (let i = 0; i < plainUpTo; i++) if (verdict[byLength[i]!] !== 2) tokens.push(byLength[i]!);
    for (const t of stepped) if (verdict[t] === 1 && !(lengthOf[t]! > 0 && lengthOf[t]! <= depth)) tokens.push(t);
    return { kind: "set", tokens };
  }
  const banned: number[] = [];
  for (const t of stepped) if (verdict[t] === 2) banned.push(t);
  for (let i = plainUpTo; i < byLength.length; i++) if (!verdict[byLength[i]!]) banned.push(byLength[i]!);
  for (const t of index.never) banned.push(t);
  const allowedSpecial = new Set(specials);
  for (const t of index.specials) if (!allowedSpecial.has(t)) banned.push(t);
  return { kind: "except", banned };
}
