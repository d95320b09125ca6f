// Owns: the exact mask where free text may come next (string contents, raw parameter values, keys), without walking
// the whole trie: there almost every token is allowed, and a state treats almost every character alike. Each state
// has a plain successor (where `a` leads) and its odd characters (those that lead elsewhere: a closing quote, a
// backslash, a control character, the `<` of a closing tag). Following plain successors gives a chain (one state that
// leads to itself in an unbounded string; one state per character, or per byte, left in a bounded one). A token
// holding no character odd anywhere on the chain is allowed exactly when it is no longer than the chain; every other
// token is judged by its tail (the text from its first odd character on) from the chain state its head leads to,
// once per state and tail. A token that cuts a character at its end counts the unfinished one as a non-ASCII
// character (a chain that takes every non-ASCII character alike takes some completion of it). The index it needs is
// built once per vocabulary.

import type { NextTokens } from "./matcher.js";
import { DEAD, type StackPool, type StateId } from "./stack-pool.js";
import { clearBit, setBit, wordsFor } from "./token-bits.js";
import { allowedTextTokens } from "./token-mask.js";
import { stepBytes } from "./utf8-steps.js";
import type { VocabTrie } from "./vocab-trie.js";

/** The character whose successor is the plain one where several tie (every free-text state takes it). */
const PLAIN_PROBE = 0x61;
/** Odd-character slots: one per ASCII character, and one for every non-ASCII character at once. */
const NON_ASCII = 128;
const ODD_WORDS = 5;
/** Past a quarter of the vocabulary to judge one by one, a text mask leaves the state to the trie walk. */
const ODD_SHARE_LIMIT = 4;

const hasSlot = (odd: Uint32Array, slot: number) => (odd[slot >> 5]! & (1 << (slot & 31))) !== 0;
const slotOf = (cp: number) => Math.min(cp, NON_ASCII);

/** Tokens ordered by one length (characters or UTF-8 bytes), shortest first. */
export interface Lengths {
  readonly order: Int32Array;
  /** start[L]: the index in order of the first token longer than L - 1 (L ≤ max + 1). */
  readonly start: Int32Array;
  /** Each token's length (0: not in order). */
  readonly of: Uint16Array;
  readonly max: number;
}

/** What the vocabulary answers for exact text masks (built once per vocabulary; see buildTextIndex). */
export interface TextIndex {
  readonly vocabSize: number;
  /**
   * Text tokens by their length in characters and in bytes: whole UTF-8 ones, and those that cut a character at
   * their end where it can still become one (it counts as one non-ASCII character, of its full width in bytes).
   */
  readonly chars: Lengths;
  readonly bytes: Lengths;
  /** Per odd slot (ASCII character, then non-ASCII), the tokens of `chars` holding it. */
  readonly holding: readonly Int32Array[];
  /** Per odd slot, the tokens of `chars` that begin with it. */
  readonly starting: readonly Int32Array[];
  /** Tokens that cut a character, begin where one may, and are not in `chars` (stepped byte by byte, each on its own). */
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
 * A cut token as characters: its whole ones, then a non-ASCII stand-in for the one it leaves unfinished, and its
 * length in bytes once that one is complete; undefined where that one can become no character (only surrogates,
 * past U+10FFFF, overlong) or the bytes are broken.
 */
export function cutAsCharacters(bytes: Uint8Array): { chars: Int32Array; byteLength: number } | undefined {
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
  return someCharacter ? { chars: Int32Array.from([...cps, NON_ASCII]), byteLength: bytes.length + need } : undefined;
}

/** Tokens with a length (0: absent) ordered by it: a counting sort. */
function lengthsOf(of: Uint16Array): Lengths {
  let max = 0;
  for (const L of of) max = Math.max(max, L);
  const counts = new Int32Array(max + 1);
  for (const L of of) if (L > 0) counts[L]!++;
  const start = new Int32Array(max + 2);
  for (let L = 1; L <= max + 1; L++) start[L] = start[L - 1]! + counts[L - 1]!;
  const order = new Int32Array(start[max + 1]!);
  const at = start.slice();
  for (let t = 0; t < of.length; t++) if (of[t]! > 0) order[at[of[t]!]!++] = t;
  return { order, start, of, max };
}

export function buildTextIndex(v: TextIndexSource): TextIndex {
  const n = v.vocabSize;
  // Each text token's characters: its code points, or a cut one's (cutAsCharacters); and its lengths.
  const chars = new Array<Int32Array | undefined>(n);
  const charLength = new Uint16Array(n);
  const byteLength = new Uint16Array(n);
  const oddCut: number[] = [];
  const placed = new Uint8Array(n);
  for (const t of v.cutStarting) {
    placed[t] = 1;
    const shape = cutAsCharacters(v.bytes(t)!);
    if (!shape) oddCut.push(t);
    else {
      chars[t] = shape.chars;
      byteLength[t] = shape.byteLength;
    }
  }
  const never: number[] = [];
  const specials: number[] = [];
  for (let t = 0; t < n; t++) {
    if (v.isSpecial(t)) {
      specials.push(t);
      continue;
    }
    if (!chars[t]) {
      chars[t] = v.codePoints(t);
      if (chars[t]) byteLength[t] = v.bytes(t)!.length;
    }
    if (chars[t]) charLength[t] = chars[t]!.length;
    else if (!placed[t]) never.push(t);
  }
  // The slots one token holds, each once (stamped with the token's id + 1).
  const stamp = new Int32Array(NON_ASCII + 1);
  const eachSlot = (t: number, visit: (slot: number) => void) => {
    for (const cp of chars[t]!) {
      const slot = slotOf(cp);
      if (stamp[slot] === t + 1) continue;
      stamp[slot] = t + 1;
      visit(slot);
    }
  };
  const slotCounts = new Int32Array(NON_ASCII + 1);
  for (let t = 0; t < n; t++) if (charLength[t]) eachSlot(t, (slot) => slotCounts[slot]!++);
  const holding = Array.from(slotCounts, (c) => new Int32Array(c));
  const filled = new Int32Array(NON_ASCII + 1);
  stamp.fill(0);
  for (let t = 0; t < n; t++) if (charLength[t]) eachSlot(t, (slot) => (holding[slot]![filled[slot]!++] = t));
  const starting = Array.from({ length: NON_ASCII + 1 }, () => [] as number[]);
  for (let t = 0; t < n; t++) if (charLength[t]) starting[slotOf(chars[t]![0]!)]!.push(t);
  return {
    vocabSize: n,
    chars: lengthsOf(charLength),
    bytes: lengthsOf(byteLength),
    holding,
    starting: starting.map((list) => Int32Array.from(list)),
    oddCut: Int32Array.from(oddCut),
    never: Int32Array.from(never),
    specials: Int32Array.from(specials),
  };
}

/**
 * One state's link: its plain successor, the ASCII characters that lead elsewhere, and where non-ASCII characters
 * lead: all alike (`wide`), and by width in bytes (`w2`..`w4`); undefined where they part.
 */
interface Link {
  plain: StateId;
  odd: Uint32Array;
  wide: StateId | undefined;
  w2: StateId | undefined;
  w3: StateId | undefined;
  w4: StateId | undefined;
}

/** Links per pool and state (a pool is one compiled grammar; the links live as long as it does). */
const linksOf = new WeakMap<StackPool, Map<StateId, Link>>();

/**
 * The plain successor: where most printable ASCII characters lead (`a`'s target where it ties; nowhere, DEAD, at the
 * end of a bounded string, where only the closing quote leads on and every character else is refused). Not always
 * `a`'s: at `{"w` in an object that lists a name beginning `wa` beside open keys, `a` leads on into that name and
 * every other letter into the open key, so with `a` as the plain character every letter was odd, 140,244 tokens were
 * to be judged one by one, and the mask fell back to an 85 ms walk of the whole trie; with the open key's target,
 * only the tokens that begin with `a` are judged apart.
 */
function plainTarget(runs: readonly [from: number, to: number, target: StateId][]): StateId {
  const weight = new Map<StateId, number>();
  let best: StateId = DEAD;
  let most = 0;
  for (const [from, to, target] of runs) {
    const printable = Math.min(to, 0x7e) - Math.max(from, 0x20) + 1;
    if (printable <= 0) continue;
    const w = (weight.get(target) ?? 0) + printable;
    weight.set(target, w);
    if (w > most) [best, most] = [target, w];
  }
  const a = runs.find(([from, to]) => from <= PLAIN_PROBE && PLAIN_PROBE <= to)?.[2];
  return a !== undefined && weight.get(a) === most ? a : best;
}

function linkOf(pool: StackPool, at: StateId): Link {
  let links = linksOf.get(pool);
  if (!links) linksOf.set(pool, (links = new Map()));
  const known = links.get(at);
  if (known) return known;
  const runs: [from: number, to: number, target: StateId][] = [];
  pool.eachRun(at, 0, NON_ASCII - 1, (from, to, target) => runs.push([from, to, target]));
  const plain = plainTarget(runs);
  const odd = new Uint32Array(ODD_WORDS);
  for (const [from, to, target] of runs) if (target !== plain) for (let c = from; c <= to; c++) odd[c >> 5]! |= 1 << (c & 31);
  const w3a = pool.targetOver(at, 0x800, 0xd7ff);
  const link = {
    plain,
    odd,
    wide: pool.targetOver(at, 0x80, 0x10ffff),
    w2: pool.targetOver(at, 0x80, 0x7ff),
    w3: w3a === pool.targetOver(at, 0xe000, 0xffff) ? w3a : undefined,
    w4: pool.targetOver(at, 0x10000, 0x10ffff),
  };
  links.set(at, link);
  return link;
}

/**
 * The chain from `at`: its states (the one after k plain characters is `after(k)`), how many plain characters may
 * follow (Infinity when it cycles or outlasts every token), the union of the odd slots of its states, and whether
 * it counts non-ASCII characters by their bytes (a byte-bounded string) rather than as one each. Where non-ASCII
 * characters do neither, they are odd.
 */
interface Chain {
  after(k: number): StateId;
  depth: number;
  /**
   * Whether non-ASCII characters take one plain step each, one per byte, or (`mixed`, an unbounded chain only) one
   * way at some states and the other at others: then a token's head is stepped, not counted.
   */
  unit: "chars" | "bytes" | "mixed";
  /** The odd slots of `at` itself (they matter for a token's first character only). */
  oddFirst: Uint32Array;
  /** The odd slots of the states after one plain character or more. */
  odd: Uint32Array;
}

function chainOf(pool: StackPool, at: StateId, cap: number): Chain {
  const states: StateId[] = [];
  const links: Link[] = [];
  const index = new Map<StateId, number>();
  const odd = new Uint32Array(ODD_WORDS);
  let cycleFrom = -1;
  let depth = Infinity;
  for (let s = at; states.length <= cap; ) {
    index.set(s, states.length);
    states.push(s);
    const link = linkOf(pool, s);
    links.push(link);
    if (states.length > 1) for (let w = 0; w < ODD_WORDS; w++) odd[w]! |= link.odd[w]!;
    if (link.plain === DEAD) {
      depth = states.length - 1;
      break;
    }
    const seen = index.get(link.plain);
    if (seen !== undefined) {
      cycleFrom = seen;
      break;
    }
    s = link.plain;
  }
  const cycle = states.length - cycleFrom;
  const after = (k: number): StateId => (k < states.length ? states[k]! : cycleFrom >= 0 ? states[cycleFrom + ((k - cycleFrom) % cycle)]! : DEAD);
  // Past the cap (a chain longer than every token) the states are not known, and no token reaches them.
  const capped = cycleFrom < 0 && depth === Infinity;
  const leadsTo = (target: StateId | undefined, k: number) => (capped && k >= states.length) || target === after(k);
  const byChars = (l: Link, i: number) => leadsTo(l.wide, i + 1);
  const byBytes = (l: Link, i: number) => leadsTo(l.w2, i + 2) && leadsTo(l.w3, i + 3) && leadsTo(l.w4, i + 4);
  const asChars = links.every(byChars);
  const asBytes = !asChars && links.every(byBytes);
  // A string counted by characters, then by bytes near its budget: fine while no token can reach the chain's end.
  const mixed = !asChars && !asBytes && depth === Infinity && links.every((l, i) => byChars(l, i) || byBytes(l, i));
  // Back at `at` after a cycle, its odd characters matter past the first one too.
  if (cycleFrom === 0) for (let w = 0; w < ODD_WORDS; w++) odd[w]! |= links[0]!.odd[w]!;
  const oddFirst = links[0]!.odd.slice();
  if (!asChars && !asBytes && !mixed) for (const set of [odd, oddFirst]) set[NON_ASCII >> 5]! |= 1 << (NON_ASCII & 31);
  return { after, depth, unit: asChars ? "chars" : asBytes ? "bytes" : "mixed", oddFirst, odd };
}

/**
 * Tokens of `chars` holding an odd character, by their tail (the text from the first odd character on), grouped by
 * its first character, each with the length of its head (in the chain's unit); and the cut ones among them.
 */
interface Tails {
  groups: TailGroup[];
  cut: number[];
  /** 1 for each token holding an odd character (the tails' tokens and the cut ones): the rest are plain. */
  holdsOdd: Uint8Array;
  /** 1 for each token whose head holds a non-ASCII character (in a mixed chain, only its head is stepped). */
  wideHead: Uint8Array;
  /** The token lengths in the tails' unit (characters or bytes). */
  lengths: Lengths;
  /** Per length L, the plain tokens no longer than L as a bitset and its count (built up to the longest asked). */
  plainUpTo: { bits: Uint32Array; count: number }[] | undefined;
}

/** The tails that begin with one odd character, and their tokens by head length. */
interface TailGroup {
  first: number;
  tails: Int32Array[];
  /** The head lengths its tokens have, ascending: a state that refuses `first` after each of them refuses the group. */
  headLengths: Uint16Array;
  /**
   * Per head length (in `headLengths`' order), its tokens and each one's tail (an index into `tails`). Past the first
   * character few tokens hold an odd one, so the state after a head of one character or more judges a few tails,
   * not the group's hundreds.
   */
  byHead: { tokens: Int32Array; tails: Int32Array }[];
  /**
   * Per pool and state after `first`, each tail's verdict as far as asked (0 not yet judged, 1 taken, 2 refused).
   * Keyed by the state after the odd character, not before it: every position of a bounded string is a state of its
   * own, but a closing quote leads them all to the same one (past minLength), so a string's positions share these
   * rows.
   */
  verdicts: WeakMap<StackPool, Map<StateId, Uint8Array>>;
}

function groupByHead(g: { first: number; tails: Int32Array[]; pairs: [number, number, number][] }): TailGroup {
  const headLengths = Uint16Array.from(new Set(g.pairs.map(([h]) => h))).sort();
  const byHead = Array.from(headLengths, (h) => {
    const pairs = g.pairs.filter(([head]) => head === h);
    return { tokens: Int32Array.from(pairs, ([, t]) => t), tails: Int32Array.from(pairs, ([, , k]) => k) };
  });
  return { first: g.first, tails: g.tails, headLengths, byHead, verdicts: new WeakMap() };
}

function compareCodePoints(a: Int32Array, b: Int32Array): number {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Tails per vocabulary index, odd set and unit (a JSON string's odd set is the same in every string of every grammar). */
const tailsCache = new WeakMap<TextIndex, Map<string, Tails>>();

function tailsOf(index: TextIndex, vocab: TextMaskVocab, odd: Uint32Array, inBytes: boolean): Tails {
  let byKey = tailsCache.get(index);
  if (!byKey) tailsCache.set(index, (byKey = new Map()));
  const key = `${odd.join(",")}/${inBytes ? "bytes" : "chars"}`;
  const known = byKey.get(key);
  if (known) return known;
  const seen = new Uint8Array(index.vocabSize);
  const wideHead = new Uint8Array(index.vocabSize);
  const byTail = new Map<string, { tail: Int32Array; tokens: number[]; heads: number[] }>();
  const cut: number[] = [];
  const width = (cp: number) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
  for (let slot = 0; slot <= NON_ASCII; slot++) {
    if (!hasSlot(odd, slot)) continue;
    for (const t of index.holding[slot]!) {
      if (seen[t]) continue;
      seen[t] = 1;
      const cps = vocab.codePoints(t);
      if (!cps) {
        cut.push(t);
        continue;
      }
      let i = 0;
      let head = 0;
      for (; !hasSlot(odd, slotOf(cps[i]!)); i++) {
        head += inBytes ? width(cps[i]!) : 1;
        if (cps[i]! >= 0x80) wideHead[t] = 1;
      }
      const tail = cps.subarray(i);
      const text = String.fromCodePoint(...tail);
      const entry = byTail.get(text);
      if (entry) {
        entry.tokens.push(t);
        entry.heads.push(head);
      } else byTail.set(text, { tail, tokens: [t], heads: [head] });
    }
  }
  const groups = new Map<number, { first: number; tails: Int32Array[]; pairs: [head: number, token: number, tail: number][] }>();
  // Sorted, so a group's tails that share a prefix sit together (see TailWalk).
  const sorted = [...byTail.values()].sort((a, b) => compareCodePoints(a.tail, b.tail));
  for (const { tail, tokens, heads } of sorted) {
    let group = groups.get(tail[0]!);
    if (!group) groups.set(tail[0]!, (group = { first: tail[0]!, tails: [], pairs: [] }));
    const k = group.tails.push(tail) - 1;
    tokens.forEach((t, i) => group.pairs.push([heads[i]!, t, k]));
  }
  const tails = { groups: [...groups.values()].map(groupByHead), cut, holdsOdd: seen, wideHead, lengths: inBytes ? index.bytes : index.chars, plainUpTo: undefined };
  byKey.set(key, tails);
  return tails;
}

const TAKEN = 1;
const REFUSED = 2;

/**
 * The verdicts of `group`'s tails from `s`, the state before their first character (see TailGroup.verdicts), with
 * those of `asked` (indices into its tails) judged; undefined where `s` refuses that character.
 */
function groupVerdicts(pool: StackPool, group: TailGroup, s: StateId, asked: Int32Array): Uint8Array | undefined {
  const next = s === DEAD ? DEAD : pool.step(s, group.first);
  if (next === DEAD) return undefined;
  let byState = group.verdicts.get(pool);
  if (!byState) group.verdicts.set(pool, (byState = new Map()));
  let row = byState.get(next);
  if (!row) byState.set(next, (row = new Uint8Array(group.tails.length)));
  const walk = new TailWalk(pool, next);
  for (const k of asked) if (row[k] === 0) row[k] = walk.takes(group.tails[k]!) ? TAKEN : REFUSED;
  return row;
}

/**
 * Tails stepped in their sorted order from the state after their common first character, each from where the one
 * before it parts from it: a group's tails share most of their steps (Qwen3's 349 tails after `<` hold 1,852
 * characters, their trie 1,040).
 */
class TailWalk {
  /** states[i]: the state after the previous tail's first i + 1 characters, for i < known. */
  private readonly states: StateId[];
  private known = 1;
  private previous: Int32Array | undefined;

  constructor(
    private readonly pool: StackPool,
    afterFirst: StateId,
  ) {
    this.states = [afterFirst];
  }

  takes(tail: Int32Array): boolean {
    const prev = this.previous;
    let i = 1;
    if (prev) while (i < tail.length && i < this.known && tail[i] === prev[i]) i++;
    let at = this.states[i - 1]!;
    for (; i < tail.length && at !== DEAD; i++) this.states[i] = at = this.pool.step(at, tail[i]!);
    this.known = i;
    this.previous = tail;
    return at !== DEAD;
  }
}

/**
 * The plain tokens (holding no odd character) no longer than `L` in `lengths` (the chain's unit), as a bitset: the
 * part of a text mask shared by every state whose chain allows L plain characters. Built length by length, each from
 * the one before, as far as asked (a bounded string's positions ask for each length in turn, and building one from
 * scratch cost a pass over the vocabulary each; a string's last position asks for 1 only, where building every length
 * cost 5 ms for an odd set no other state has).
 */
function plainBits(tails: Tails, vocabSize: number, L: number): { bits: Uint32Array; count: number } {
  const upTo = (tails.plainUpTo ??= []);
  const want = Math.min(L, tails.lengths.max);
  if (upTo.length <= want) extendPlainBits(tails, upTo, vocabSize, want);
  return upTo[want]!;
}

function extendPlainBits(tails: Tails, upTo: { bits: Uint32Array; count: number }[], vocabSize: number, want: number): void {
  const { order, start } = tails.lengths;
  const last = upTo[upTo.length - 1];
  let bits = last?.bits ?? new Uint32Array(wordsFor(vocabSize));
  let count = last?.count ?? 0;
  for (let L = upTo.length; L <= want; L++) {
    // A length no plain token has shares the shorter one's bitset (the long lengths are sparse).
    let added = false;
    for (let i = start[L]!; i < start[L + 1]!; i++) {
      if (tails.holdsOdd[order[i]!]) continue;
      if (!added && L > 0) bits = bits.slice();
      added = true;
      count += setBit(bits, order[i]!);
    }
    upTo.push({ bits, count });
  }
}

/** An odd set of ASCII characters (the slot of each). */
function oddSetOf(chars: readonly number[]): Uint32Array {
  const odd = new Uint32Array(ODD_WORDS);
  for (const c of chars) odd[c >> 5]! |= 1 << (c & 31);
  return odd;
}

const CONTROLS = Array.from({ length: 0x20 }, (_, c) => c);
/**
 * The odd sets of the strings qtc's grammars write most, and the units they are counted in: a JSON string's (control
 * characters, `"`, `\`), a JSON string inside a tool call's tags (`<` too: it may not spell the close tag), each
 * bounded in characters or in bytes; and an open object key's (DEL too: a key leaves it out), never bounded.
 */
const COMMON_ODD_SETS: [odd: Uint32Array, units: boolean[]][] = [
  [oddSetOf([...CONTROLS, 0x22, 0x5c]), [false, true]],
  [oddSetOf([...CONTROLS, 0x22, 0x3c, 0x5c]), [false, true]],
  [oddSetOf([...CONTROLS, 0x22, 0x3c, 0x5c, 0x7f]), [false]],
];

/**
 * Build the tails and plain-token bitsets of the common strings' odd sets ahead (a few milliseconds and 2–4 MB each
 * per vocabulary), so the first string or open key a turn writes does not pay for them inside one token's step (an
 * open key's took 15 ms in one MaskBench token).
 */
export function warmTextMasks(index: TextIndex, vocab: TextMaskVocab): void {
  for (const [odd, units] of COMMON_ODD_SETS) {
    for (const inBytes of units) plainBits(tailsOf(index, vocab, odd, inBytes), index.vocabSize, Infinity);
  }
}

/** Whether the chain refuses the group's first character after each head length its tokens have (up to depth). */
function refusedAfterEveryHead(pool: StackPool, group: TailGroup, chain: Chain, depth: number): boolean {
  for (const h of group.headLengths) {
    if (h > depth) break;
    if (pool.step(chain.after(h), group.first) !== DEAD) return false;
  }
  return true;
}

/** What textMask reads of the vocabulary beside its index. */
export interface TextMaskVocab {
  readonly textIndex: TextIndex;
  readonly trie: VocabTrie;
  /** Whether a token is whole text (not special, not cut, not empty). */
  isText(token: number): boolean;
  codePoints(token: number): Int32Array | undefined;
  bytes(token: number): Uint8Array | undefined;
}

/** Tokens a text mask judges one by one (an upper bound): those beginning with a character odd at `at`, and those holding one odd past it. */
function oddTokens(index: TextIndex, chain: Chain): number {
  let n = 0;
  for (let slot = 0; slot <= NON_ASCII; slot++) {
    if (hasSlot(chain.oddFirst, slot)) n += index.starting[slot]!.length;
    if (hasSlot(chain.odd, slot)) n += index.holding[slot]!.length;
  }
  return n;
}

/**
 * The exact next tokens at `at` (no character pending), where `a` is taken, as a bitset: the plain tokens the
 * chain's depth allows (a shared bitset, copied), then each token holding an odd character set by its tail's verdict
 * from the chain state its head leads to, the cut ones judged on their own, and the special tokens `at` allows
 * (`specials`). Undefined where most tokens hold an odd character (a name or an enum value where `a` and `e` may
 * both begin one, a URI-like pattern where spaces and non-ASCII end the string): there the trie walk costs less
 * (measured on MaskBench's sample: judging those tokens one by one made its average 3.8 ms, not 2.2).
 */
export function textMask(pool: StackPool, vocab: TextMaskVocab, at: StateId, specials: readonly number[]): NextTokens | undefined {
  const index = vocab.textIndex;
  const chain = chainOf(pool, at, index.bytes.max + 4);
  const { depth, odd } = chain;
  // Where most characters are refused (a uuid's or a date's digits take `a` and `e`), no plain token is taken and
  // every allowed one begins with an odd character: the trie walk visits only those (about 250 nodes in a uuid), while
  // this mask cleared the 20,000 tokens beginning with a hex digit one by one first (300–1,300 µs a position).
  if (depth === 0) return undefined;
  if (oddTokens(index, chain) * ODD_SHARE_LIMIT > index.vocabSize) return undefined;
  const tails = tailsOf(index, vocab, odd, chain.unit === "bytes");
  const plain = plainBits(tails, index.vocabSize, depth);
  const bits = plain.bits.slice();
  let count = plain.count;
  const from = { at, partial: undefined };
  const judge = (t: number) => {
    const cps = vocab.codePoints(t);
    let s: StateId = at;
    if (cps) for (let i = 0; i < cps.length && s !== DEAD; i++) s = pool.step(s, cps[i]!);
    const taken = cps ? s !== DEAD : stepBytes(pool, from, vocab.bytes(t)!);
    count += taken ? setBit(bits, t) : -clearBit(bits, t);
  };
  // A non-ASCII head in a mixed chain is stepped (a non-ASCII character takes one or several steps there).
  const stateAfterHead = (t: number, h: number): StateId => {
    const cps = vocab.codePoints(t)!;
    let s = at;
    for (let i = 0; i < h && s !== DEAD; i++) s = pool.step(s, cps[i]!);
    return s;
  };
  // Tokens holding an odd character: taken where their tail is, from the state after their head (a head longer
  // than the chain is refused: it is not set).
  for (const group of tails.groups) {
    // A group the chain refuses after every head its tokens have (a space in a URI) is skipped whole: not set.
    if (chain.unit !== "mixed" && refusedAfterEveryHead(pool, group, chain, depth)) continue;
    group.headLengths.forEach((h, j) => {
      if (h > depth) return;
      const { tokens, tails: of } = group.byHead[j]!;
      // An ASCII head leads where `a` does, whatever the chain's unit: only a non-ASCII one is stepped.
      const row = groupVerdicts(pool, group, chain.after(h), of);
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i]!;
        if (chain.unit === "mixed" && tails.wideHead[t]) {
          const own = groupVerdicts(pool, group, stateAfterHead(t, h), of.subarray(i, i + 1));
          if (own?.[of[i]!] === TAKEN) count += setBit(bits, t);
        } else if (row?.[of[i]!] === TAKEN) count += setBit(bits, t);
      }
    });
  }
  for (const list of [tails.cut, index.oddCut]) for (const t of list) judge(t);
  // A token beginning with a character odd at `at` but plain further on (after a string's `<`, a `t`): its head
  // was counted as plain above, so it is judged whole (where that character is odd all along, its tail is the
  // whole token, judged from `at` already).
  for (let slot = 0; slot <= NON_ASCII; slot++) {
    if (!hasSlot(chain.oddFirst, slot) || hasSlot(odd, slot)) continue;
    // Walked on the trie under that character (thousands of tokens begin with a `t`; a walk shares their prefixes),
    // the cut ones (not in the trie's answer) one by one.
    for (const t of index.starting[slot]!) {
      if (vocab.isText(t)) count -= clearBit(bits, t);
      else judge(t);
    }
    const under = slot === NON_ASCII ? (b: number) => b >= 0x80 : (b: number) => b === slot;
    for (const t of allowedTextTokens(pool, vocab.trie, at, under)) count += setBit(bits, t);
  }
  for (const t of specials) count += setBit(bits, t);
  return { kind: "bits", allowed: bits, count, vocabSize: index.vocabSize };
}
