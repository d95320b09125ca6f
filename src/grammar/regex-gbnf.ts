// Owns: turning a parsed `pattern` into GBNF for a string's content (JSON-escaped or raw), with every repetition
// bounded so the content fits a byte budget and the schema's maxLength. Unanchored ends become bounded "any".

import { type CodeRange, charClass, literal, type RuleSet } from "./gbnf.js";
import { complement, inRanges, intersect, normalizeRanges, onlySpace, type ParsedPattern, type Re } from "./regex.js";
import { first } from "./regex-first.js";
import type { Charset } from "./text-chain.js";

/** Largest repetition count the grammar spells (llama.cpp refuses counts of 2000 and more). */
export const MAX_REPEAT = 1000;

const JSON_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x22, '\\"'],
  [0x5c, "\\\\"],
  [0x08, "\\b"],
  [0x0c, "\\f"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
  [0x09, "\\t"],
]);

/**
 * What may follow a `<` in a string before its format is known: `/` and the letters, which could begin a tag. A
 * compile knows its format's tags and asks for fewer (text-chain.ts's tagStarts).
 */
export const ANY_TAG_START: CodeRange[] = [
  [0x2f, 0x2f],
  [0x41, 0x5a],
  [0x61, 0x7a],
];

const LT = 0x3c;
const NOT_LT = complement([[LT, LT]]);

/** What a string may hold in each charset, `<` excluded (a pattern's own `<` is kept where guardTags allows it). */
export function universe(charset: Charset): CodeRange[] {
  const base: CodeRange[] = [
    [0x20, 0x3b],
    [0x3d, 0xd7ff],
    [0xe000, 0x10ffff],
  ];
  return charset === "json"
    ? [...base, [0x08, 0x0a], [0x0c, 0x0d]]
    : [...base, [0x09, 0x0a], [0x0d, 0x0d]];
}

function cpBytes(cp: number, charset: Charset): number {
  if (charset === "json" && JSON_ESCAPES.has(cp)) return 2;
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

export function setBytes(ranges: readonly CodeRange[], charset: Charset): [number, number] {
  let min = Infinity;
  let max = 0;
  for (const [lo, hi] of ranges) {
    for (const cp of [lo, hi, 0x7f, 0x80, 0x7ff, 0x800, 0xffff, 0x10000]) {
      if (cp < lo || cp > hi) continue;
      const b = cpBytes(cp, charset);
      min = Math.min(min, b);
      max = Math.max(max, b);
    }
    if (charset === "json") {
      for (const cp of JSON_ESCAPES.keys()) if (cp >= lo && cp <= hi) max = Math.max(max, 2);
    }
  }
  return [min, max];
}

/** Restrict every set to what the charset can spell; undefined when the language becomes empty. */
function restrict(re: Re, allowed: readonly CodeRange[]): Re | undefined {
  switch (re.t) {
    case "set": {
      const ranges = intersect(re.ranges, allowed);
      return ranges.length === 0 ? undefined : { t: "set", ranges };
    }
    case "seq": {
      const items: Re[] = [];
      for (const item of re.items) {
        const r = restrict(item, allowed);
        if (!r) return undefined;
        items.push(r);
      }
      return { t: "seq", items };
    }
    case "alt": {
      const items = re.items.map((i) => restrict(i, allowed)).filter((i): i is Re => i !== undefined);
      return items.length === 0 ? undefined : { t: "alt", items };
    }
    case "rep": {
      const item = restrict(re.item, allowed);
      if (item) return { ...re, item };
      return re.min === 0 ? { t: "seq", items: [] } : undefined;
    }
  }
}

/**
 * Keep a pattern's `<` only where no character of `starts` may come right after it, so that no string it spells
 * holds a tag (`<all_urls>`, `<=1.0`, `<2.0` stay; `[^\s]*` loses its `<`, as `/` may follow it). `follow` is what
 * may come after `re`. After the whole pattern comes the string's closing delimiter: `"`, a newline, or a tag's
 * own `<`, none of them a tag's second character. Undefined when the language becomes empty.
 */
function guardTags(re: Re, follow: readonly CodeRange[], starts: readonly CodeRange[]): Re | undefined {
  switch (re.t) {
    case "set": {
      if (!inRanges(re.ranges, LT) || intersect(follow, starts).length === 0) return re;
      const ranges = intersect(re.ranges, NOT_LT);
      return ranges.length === 0 ? undefined : { t: "set", ranges };
    }
    case "seq": {
      const items: Re[] = [];
      let after = follow;
      for (let i = re.items.length - 1; i >= 0; i--) {
        // A literal `<` keeps itself by narrowing what comes next (`<.+` becomes `<[^/t].*` in hermes).
        const narrowed = isLt(re.items[i]!) && items.length > 0 && intersect(after, starts).length > 0 ? narrowFirst(items[0]!, starts) : undefined;
        if (narrowed) {
          items[0] = narrowed;
          after = first(narrowed).ranges;
        }
        const item = guardTags(re.items[i]!, after, starts);
        if (!item) return undefined;
        items.unshift(item);
        const begins = first(item);
        after = begins.empty ? normalizeRanges([...begins.ranges, ...after]) : begins.ranges;
      }
      return { t: "seq", items };
    }
    case "alt": {
      const items = re.items.map((i) => guardTags(i, follow, starts)).filter((i): i is Re => i !== undefined);
      return items.length === 0 ? undefined : { t: "alt", items };
    }
    case "rep": {
      const again = re.max === undefined || re.max >= 2 ? first(re.item).ranges : [];
      const item = guardTags(re.item, normalizeRanges([...again, ...follow]), starts);
      if (item) return { ...re, item };
      return re.min === 0 ? { t: "seq", items: [] } : undefined;
    }
  }
}

const isLt = (re: Re) => re.t === "set" && re.ranges.length === 1 && re.ranges[0]![0] === LT && re.ranges[0]![1] === LT;

/**
 * `re` without the strings that begin with a character of `starts`, where its first character is a set of its own:
 * a set, a repetition of a set at least once (`S+` becomes `S' S*`), or a sequence that begins with one. Never
 * empty-matching. Undefined for any other shape, or when nothing is left.
 */
function narrowFirst(re: Re, starts: readonly CodeRange[]): Re | undefined {
  const keep = complement(starts);
  if (re.t === "set") {
    const ranges = intersect(re.ranges, keep);
    return ranges.length === 0 ? undefined : { t: "set", ranges };
  }
  if (re.t === "rep" && re.min >= 1 && re.item.t === "set") {
    const first = narrowFirst(re.item, starts);
    const rest: Re = { t: "rep", item: re.item, min: re.min - 1, max: re.max === undefined ? undefined : re.max - 1 };
    return first && { t: "seq", items: [first, rest] };
  }
  if (re.t === "seq" && re.items.length > 0) {
    const first = narrowFirst(re.items[0]!, starts);
    return first && { t: "seq", items: [first, ...re.items.slice(1)] };
  }
  return undefined;
}

interface Measure {
  minBytes: number;
  maxBytes: number;
  minCps: number;
  maxCps: number;
}

/**
 * Repetition caps: `leaf` for repetitions of a single class or literal, `outer` for repetitions of something
 * that repeats itself. Two caps, so that a length bound does not shrink a word as far as the count of words.
 */
export interface Caps {
  leaf: number;
  outer: number;
}

/**
 * Most characters a run of whitespace between repeated words gets (`\s+` in `(?:\S+\s+){0,19}`): such runs are a
 * space or two in real text, and charging them a word's cap left room for five words in 200 characters.
 */
const SEPARATOR_CAP = 2;

/** Whether a repetition is a separator: a run of whitespace inside a repetition of repetitions (`inner`). */
const isSeparator = (re: Re & { t: "rep" }, inner: boolean) => inner && re.item.t === "set" && onlySpace(re.item.ranges);

/** The cap of a repetition (`separator`: see isSeparator, worked out once per pattern where it is measured often). */
const capOf = (re: Re & { t: "rep" }, caps: Caps, separator: boolean) =>
  hasRepeat(re.item) ? caps.outer : separator ? Math.min(caps.leaf, SEPARATOR_CAP) : caps.leaf;

/** Costs with every repetition capped (never below its minimum). */
function measure(re: Re, cap: Caps | number, charset: Charset, inner = false): Measure {
  if (typeof cap === "number") cap = { leaf: cap, outer: cap };
  switch (re.t) {
    case "set": {
      const [minBytes, maxBytes] = setBytes(re.ranges, charset);
      return { minBytes, maxBytes, minCps: 1, maxCps: 1 };
    }
    case "seq":
      return re.items.reduce(
        (acc, item) => {
          const m = measure(item, cap, charset, inner);
          return {
            minBytes: acc.minBytes + m.minBytes,
            maxBytes: acc.maxBytes + m.maxBytes,
            minCps: acc.minCps + m.minCps,
            maxCps: acc.maxCps + m.maxCps,
          };
        },
        { minBytes: 0, maxBytes: 0, minCps: 0, maxCps: 0 },
      );
    case "alt": {
      const ms = re.items.map((i) => measure(i, cap, charset, inner));
      return {
        minBytes: Math.min(...ms.map((m) => m.minBytes)),
        maxBytes: Math.max(...ms.map((m) => m.maxBytes)),
        minCps: Math.min(...ms.map((m) => m.minCps)),
        maxCps: Math.max(...ms.map((m) => m.maxCps)),
      };
    }
    case "rep": {
      const m = measure(re.item, cap, charset, inner || hasRepeat(re.item));
      const n = capCount(re, capOf(re, cap, isSeparator(re, inner)));
      return { minBytes: re.min * m.minBytes, maxBytes: n * m.maxBytes, minCps: re.min * m.minCps, maxCps: n * m.maxCps };
    }
  }
}

interface Max {
  bytes: number;
  cps: number;
}

/**
 * measure's maxBytes and maxCps as a function of the caps, built once per pattern: the cap search measures a
 * pattern about a hundred times per budget, and measure itself re-derives every set's bytes and every
 * repetition's kind (a walk of the item) on each call.
 */
function maxMeasurer(re: Re, charset: Charset, inner = false): (cap: Caps) => Max {
  switch (re.t) {
    case "set": {
      const v = { bytes: setBytes(re.ranges, charset)[1], cps: 1 };
      return () => v;
    }
    case "seq":
    case "alt": {
      const parts = re.items.map((i) => maxMeasurer(i, charset, inner));
      const join = re.t === "seq" ? (a: number, b: number) => a + b : Math.max;
      return (cap) => {
        let bytes = 0;
        let cps = 0;
        for (const part of parts) {
          const m = part(cap);
          bytes = join(bytes, m.bytes);
          cps = join(cps, m.cps);
        }
        return { bytes, cps };
      };
    }
    case "rep": {
      const item = maxMeasurer(re.item, charset, inner || hasRepeat(re.item));
      const separator = isSeparator(re, inner);
      return (cap) => {
        const m = item(cap);
        const n = capCount(re, capOf(re, cap, separator));
        return { bytes: n * m.bytes, cps: n * m.cps };
      };
    }
  }
}

function capCount(re: { min: number; max: number | undefined }, cap: number): number {
  return Math.max(re.min, Math.min(re.max ?? Infinity, cap));
}

function treeSize(re: Re): number {
  if (re.t === "set") return 1;
  if (re.t === "rep") return 1 + treeSize(re.item);
  return re.items.reduce((n, i) => n + treeSize(i), 1);
}

function hasRepeat(re: Re): boolean {
  if (re.t === "rep") return re.max === undefined || re.max > re.min || hasRepeat(re.item);
  if (re.t === "set") return false;
  return re.items.some(hasRepeat);
}

/** A pattern ready to emit: its tree restricted to the charset, and its costs. */
export interface PreparedPattern {
  re: Re;
  charset: Charset;
  /** Costs with every repetition at its minimum (the least the grammar must be able to spell). */
  tight: Measure;
  /** Costs with no cap; Infinity when a repetition is unbounded. */
  loose: Measure;
  /** Nodes of `re`: what one measurement of it visits. */
  size: number;
  /** The most bytes and code points under caps (measure's maxima, with set costs and cap kinds worked out once). */
  maxUnder: (cap: Caps) => Max;
  /** It repeats words between runs of whitespace (`(?:\S+\s+){0,29}\S+`): see WORD_SPLITS. */
  words: boolean;
}

/**
 * Join the branches (adding "any" at unanchored ends) and restrict them to the charset, a `<` kept only where none
 * of `tagStarts` may follow it (see guardTags); undefined if empty.
 */
export function preparePattern(parsed: ParsedPattern, charset: Charset, tagStarts: readonly CodeRange[] = ANY_TAG_START): PreparedPattern | undefined {
  const allowed = universe(charset);
  const any: Re = { t: "rep", item: { t: "set", ranges: allowed }, min: 0, max: undefined };
  const branches = parsed.branches.map(({ re, start, end }) => ({
    t: "seq" as const,
    items: [...(start ? [] : [any]), re, ...(end ? [] : [any])],
  }));
  const restricted = restrict(branches.length === 1 ? branches[0]! : { t: "alt", items: branches }, normalizeRanges([...allowed, [LT, LT]]));
  const re = restricted && guardTags(restricted, [], tagStarts);
  if (!re) return undefined;
  return { re, charset, tight: measure(re, 0, charset), loose: measure(re, Infinity, charset), size: treeSize(re), maxUnder: maxMeasurer(re, charset), words: repeatsWords(re) };
}

/** Whether a run of whitespace repeats inside a repetition of repetitions (a separator: see isSeparator). */
function repeatsWords(re: Re, inner = false): boolean {
  if (re.t === "set") return false;
  if (re.t === "rep") return isSeparator(re, inner) || repeatsWords(re.item, inner || hasRepeat(re.item));
  return re.items.some((i) => repeatsWords(i, inner));
}

/** A segment of LETTERS_PER_REPEAT × n letters for every n repetitions (see patternCaps). */
const LETTERS_PER_REPEAT = 4;

/**
 * The splits a pattern of words gets, each a branch of its grammar: a length bound shared between the count of
 * words and their length fits either few long words or many short ones, and one split refused the other kind (a
 * 300-character sentence of 30 words got 8 words of up to 35 letters; 9 words of up to 12 letters were refused).
 * Each branch fits the bound, so their union does too.
 */
const WORD_SPLITS = [LETTERS_PER_REPEAT, 2, 1];

const NO_CAPS: Caps = { leaf: 0, outer: 0 };

/**
 * The repetition caps for a prepared pattern within `maxBytes` and `maxCps` (the schema's maxLength): of the
 * pairs that fit, the largest min(outer + 1, leaf / k), ties to the larger leaf (with k = `letters`, 4 by default:
 * a segment of 4n letters for every n repetitions, so segments get room before their count does). Undefined when even the tightest spelling does not fit.
 * `probe` is called once per measurement of the pattern (the caller counts the work).
 *
 * A larger cap never measures less, so the largest leaf L(o) that fits is non-increasing in the outer cap o:
 * o + 1 rises and L(o) / k falls, and the best pair sits where they cross. Both searches are binary, so a pattern
 * costs about 10 × 10 measurements, not one per outer cap (o21332's URL patterns allow 1,000 outer repetitions:
 * 11,000 measurements per emit, 250 emits, about 200 s under load).
 */
export function patternCaps(p: PreparedPattern, maxBytes: number, maxCps: number, probe: () => void = () => {}, letters = LETTERS_PER_REPEAT): Caps | undefined {
  const fits = (cap: Caps) => {
    probe();
    const m = p.maxUnder(cap);
    return m.bytes <= maxBytes && m.cps <= maxCps;
  };
  if (!fits(NO_CAPS)) return undefined;
  if (!hasRepeat(p.re)) return NO_CAPS;
  const leaves = new Map<number, number>();
  // The largest leaf cap that fits with this outer cap; -1 when no leaf cap does, or only 0 past outer 0 (more
  // outer repetitions with empty segments are never better than fewer).
  const leafOf = (outer: number): number => {
    const known = leaves.get(outer);
    if (known !== undefined) return known;
    let lo = -1;
    if (outer === 0 || fits({ leaf: 0, outer })) {
      lo = 0;
      let hi = MAX_REPEAT;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (fits({ leaf: mid, outer })) lo = mid;
        else hi = mid - 1;
      }
      if (lo === 0 && outer > 0) lo = -1;
    }
    leaves.set(outer, lo);
    return lo;
  };
  // Outer caps past the largest count an outer repetition allows change nothing.
  const outerLimit = Math.min(MAX_REPEAT, outerMax(p.re));
  // The first outer cap where the count stops being the smaller term (or nothing fits any more).
  let lo = 0;
  let hi = outerLimit + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const leaf = leafOf(mid);
    if (leaf < 0 || leaf / letters <= mid + 1) hi = mid;
    else lo = mid + 1;
  }
  const cross = lo;
  // Before the crossing the score is outer + 1 (rising): its best is cross - 1, scoring cross. At the crossing
  // it is L / k, and no later pair beats it. A tie goes to the smaller outer cap (its leaf is at least as large).
  const at = cross <= outerLimit ? leafOf(cross) : -1;
  if (cross === 0 || (at >= 0 && at / letters > cross)) return { leaf: at, outer: cross };
  return { leaf: leafOf(cross - 1), outer: cross - 1 };
}

/**
 * The caps of each branch a pattern's grammar gets within `maxBytes` and `maxCps`: one split (patternCaps), or for a
 * pattern of words one per WORD_SPLITS entry, the same split once. Undefined when even the tightest does not fit.
 */
export function patternCapsSplits(p: PreparedPattern, maxBytes: number, maxCps: number, probe: () => void = () => {}): Caps[] | undefined {
  const splits: Caps[] = [];
  for (const letters of p.words ? WORD_SPLITS : [LETTERS_PER_REPEAT]) {
    const caps = patternCaps(p, maxBytes, maxCps, probe, letters);
    if (!caps) return undefined;
    if (!splits.some((c) => c.leaf === caps.leaf && c.outer === caps.outer)) splits.push(caps);
  }
  return splits;
}

/** Emit content for a prepared pattern, one branch per caps; its expression and most bytes and code points. */
export function emitPattern(rules: RuleSet, p: PreparedPattern, splits: readonly Caps[], hint: string): { expr: string; maxBytes: number; maxCps: number } {
  const measured = splits.map((c) => measure(p.re, c, p.charset));
  const branches = splits.map((c) => emit(rules, p.re, c, p.charset, hint));
  const expr = branches.length === 1 ? branches[0]! : `(${branches.join(" | ")})`;
  return { expr, maxBytes: Math.max(...measured.map((m) => m.maxBytes)), maxCps: Math.max(...measured.map((m) => m.maxCps)) };
}

/** The largest count any repetition of repetitions allows (0 when there is none; MAX_REPEAT for unbounded). */
function outerMax(re: Re): number {
  if (re.t === "set") return 0;
  if (re.t === "rep") return Math.max(hasRepeat(re.item) ? (re.max ?? MAX_REPEAT) : 0, outerMax(re.item));
  return Math.max(0, ...re.items.map(outerMax));
}

function emit(rules: RuleSet, re: Re, cap: Caps, charset: Charset, hint: string, inner = false): string {
  switch (re.t) {
    case "set":
      return setExpr(re.ranges, charset);
    case "seq":
      return re.items.length === 0 ? '""' : re.items.map((i) => emit(rules, i, cap, charset, hint, inner)).join(" ");
    case "alt":
      return `(${re.items.map((i) => emit(rules, i, cap, charset, hint, inner)).join(" | ")})`;
    case "rep": {
      const n = capCount(re, capOf(re, cap, isSeparator(re, inner)));
      if (n === 0) return '""';
      if (n > MAX_REPEAT) throw new Error(`internal: repetition ${n} above ${MAX_REPEAT}`);
      const body = emit(rules, re.item, cap, charset, hint, inner || hasRepeat(re.item));
      const item = /^\[[^\]]*\]$|^"[^"]*"$/.test(body) ? body : rules.add(`${hint}-part`, body);
      return re.min === n ? `${item}{${n}}` : `${item}{${re.min},${n}}`;
    }
  }
}

export function setExpr(ranges: readonly CodeRange[], charset: Charset): string {
  if (charset === "raw") return charClass(ranges);
  const escapes = [...JSON_ESCAPES.entries()].filter(([cp]) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi));
  const plain = intersect(ranges, complement([...JSON_ESCAPES.keys()].map((cp) => [cp, cp] as CodeRange)));
  const alts = [...(plain.length > 0 ? [charClass(plain)] : []), ...escapes.map(([, text]) => literal(text))];
  return alts.length === 1 ? alts[0]! : `(${alts.join(" | ")})`;
}
