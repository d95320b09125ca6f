// Owns: whether two string languages (patterns as JSON Schema searches them, class repeats, length bounds) can
// share a string, and whether one holds a given string: a small NFA per language and a bounded search of their
// product. It lets a oneOf whose options are strings told apart by pattern (`^[0-9]+[mM]$` vs `^[0-9]+[gG]$` vs
// "unlimited") compile as a plain union; and whether one language holds every string of another (two patterns
// in one allOf: the narrower one stands for both).

import type { CodeRange } from "./gbnf.js";
import { inRanges, parsePattern, type ParsedPattern, type Re } from "./regex.js";

/** Every code point a JSON string may hold. */
const ANY: CodeRange[] = [[0, 0x10ffff]];
/** Most NFA states one language may build (a larger one is "unsure"). */
const MAX_STATES = 2_000;
/**
 * Most work (NFA states stepped) one product search does before it answers "unsure": a oneOf of n string options
 * asks n(n-1)/2 of them, and patterns told apart at all are told apart in a few hundred.
 */
const MAX_WORK = 20_000;
/** Least copies of "any character" a minLength unrolls; above it the language is widened to `.{64,}` (still a superset). */
export const MAX_UNROLLED_LENGTH = 64;

/** One string language as an NFA: state 0 starts, `accept` ends; edges on code-point ranges, and empty moves. */
export interface Nfa {
  readonly eps: number[][];
  readonly edges: { ranges: readonly CodeRange[]; to: number }[][];
  readonly accept: number;
}

/** A string language described by what a string node says of its content. */
export type Language =
  | { t: "pattern"; pattern: ParsedPattern }
  | { t: "repeat"; ranges: readonly CodeRange[]; min: number; max?: number };

class TooLarge extends Error {}

class Builder {
  readonly eps: number[][] = [];
  readonly edges: { ranges: readonly CodeRange[]; to: number }[][] = [];

  constructor(private readonly maxStates: number) {}

  state(): number {
    if (this.eps.length >= this.maxStates) throw new TooLarge();
    this.eps.push([]);
    this.edges.push([]);
    return this.eps.length - 1;
  }

  /** States for `re` entered at `from`; returns the state it leaves at. */
  re(re: Re, from: number): number {
    switch (re.t) {
      case "set": {
        const to = this.state();
        this.edges[from]!.push({ ranges: re.ranges, to });
        return to;
      }
      case "seq":
        return re.items.reduce((at, item) => this.re(item, at), from);
      case "alt": {
        const end = this.state();
        for (const item of re.items) this.eps[this.re(item, from)]!.push(end);
        return end;
      }
      case "rep":
        return this.repeat(re.item, re.min, re.max, from);
    }
  }

  private repeat(item: Re, min: number, max: number | undefined, from: number): number {
    let at = from;
    for (let i = 0; i < min; i++) at = this.re(item, at);
    if (max === undefined) {
      // item*: loop back to where it started, or skip it.
      const loop = this.state();
      this.eps[at]!.push(loop);
      this.eps[this.re(item, loop)]!.push(loop);
      return loop;
    }
    const end = this.state();
    for (let i = min; i < max; i++) {
      this.eps[at]!.push(end);
      at = this.re(item, at);
    }
    this.eps[at]!.push(end);
    return end;
  }
}

/** The NFA of a language, or undefined when it would have more than `maxStates` states (by default, what this module searches). */
export function languageNfa(language: Language, maxStates = MAX_STATES): Nfa | undefined {
  const b = new Builder(maxStates);
  try {
    const start = b.state();
    let accept: number;
    if (language.t === "repeat") {
      const widened = language.min > MAX_UNROLLED_LENGTH || (language.max !== undefined && language.max - language.min > MAX_UNROLLED_LENGTH);
      const max = widened ? undefined : language.max;
      accept = b.re({ t: "rep", item: { t: "set", ranges: [...language.ranges] }, min: Math.min(language.min, MAX_UNROLLED_LENGTH), max }, start);
    } else {
      // A branch not anchored at an end matches anywhere in the string: any characters may stand before or after it.
      accept = b.state();
      for (const branch of language.pattern.branches) {
        let at = branch.start ? start : b.re({ t: "rep", item: { t: "set", ranges: ANY }, min: 0, max: undefined }, start);
        at = b.re(branch.re, at);
        if (!branch.end) at = b.re({ t: "rep", item: { t: "set", ranges: ANY }, min: 0, max: undefined }, at);
        b.eps[at]!.push(accept);
      }
    }
    return { eps: b.eps, edges: b.edges, accept };
  } catch (e) {
    if (e instanceof TooLarge) return undefined;
    throw e;
  }
}

/** The states reachable from `states` by empty moves, sorted. */
export function closure(nfa: Nfa, states: Iterable<number>): number[] {
  const seen = new Set<number>();
  const stack = [...states];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const t of nfa.eps[s]!) stack.push(t);
  }
  return [...seen].sort((a, b) => a - b);
}

/** The states `states` reach on code point `cp`, closed under empty moves. */
function step(nfa: Nfa, states: readonly number[], cp: number): number[] {
  const next: number[] = [];
  for (const s of states) for (const e of nfa.edges[s]!) if (inRanges(e.ranges, cp)) next.push(e.to);
  return closure(nfa, next);
}

/** Whether the language holds `text` exactly (an NFA simulation: linear in the text). */
export function languageHolds(nfa: Nfa, text: string): boolean {
  let states = closure(nfa, [0]);
  for (const ch of text) {
    states = step(nfa, states, ch.codePointAt(0)!);
    if (states.length === 0) return false;
  }
  return states.includes(nfa.accept);
}

/** The code ranges the states' edges take. */
function nextRanges(nfa: Nfa, states: readonly number[]): CodeRange[] {
  return states.flatMap((s) => nfa.edges[s]!.flatMap((e) => e.ranges));
}

/** The code points where what `a` and `b` may do next changes: one representative per interval both may take. */
function sharedPoints(x: Nfa, a: readonly number[], y: Nfa, b: readonly number[]): number[] {
  const cuts = new Set<number>();
  const ra = nextRanges(x, a);
  const rb = nextRanges(y, b);
  for (const [lo, hi] of [...ra, ...rb]) {
    cuts.add(lo);
    cuts.add(hi + 1);
  }
  return [...cuts].sort((p, q) => p - q).filter((cp) => inRanges(ra, cp) && inRanges(rb, cp));
}

/**
 * Whether no string belongs to both languages: true when proven, false when some string is in both or the search
 * ran past its bounds (callers treat false as "may overlap").
 */
export function languagesDisjoint(x: Nfa, y: Nfa): boolean {
  return !productSearch(
    x,
    y,
    (a, b) => (a.includes(x.accept) && b.includes(y.accept) ? "found" : sharedPoints(x, a, y, b)),
    (na, nb) => na.length > 0 && nb.length > 0,
  );
}

/**
 * Whether every string of `x` belongs to `y`: true when proven (a search of x against y's subsets that finds no
 * string x holds and y does not), false when one is found or the search ran past its bounds.
 */
export function languageIncluded(x: Nfa, y: Nfa): boolean {
  return !productSearch(x, y, (a, b) => (a.includes(x.accept) && !b.includes(y.accept) ? "found" : pointsOfFirst(x, a, y, b)), (na) => na.length > 0);
}

/**
 * Breadth first over pairs of state sets (x's, y's) from both starts, each pair once: true when `look` finds a
 * pair that answers the question, or the search runs past MAX_WORK (unsure); false when every pair was seen.
 * `look` gives a pair's code points to go on by; `keep` says which successor pairs are worth visiting.
 */
function productSearch(
  x: Nfa,
  y: Nfa,
  look: (a: number[], b: number[]) => "found" | number[],
  keep: (na: number[], nb: number[]) => boolean,
): boolean {
  const seen = new Set<string>();
  const queue: [number[], number[]][] = [[closure(x, [0]), closure(y, [0])]];
  let work = 0;
  while (queue.length > 0) {
    const [a, b] = queue.shift()!;
    const key = `${a.join(",")}|${b.join(",")}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const points = look(a, b);
    if (points === "found") return true;
    work += (a.length + b.length) * (points.length + 1);
    if (work > MAX_WORK) return true;
    for (const cp of points) {
      const na = step(x, a, cp);
      const nb = step(y, b, cp);
      if (keep(na, nb)) queue.push([na, nb]);
    }
  }
  return false;
}

/**
 * The code points where what `a` may do next changes, one per interval `a` may take (where y cannot go, x's next
 * strings are y's only if x has none: every x move is then a counterexample path).
 */
function pointsOfFirst(x: Nfa, a: readonly number[], y: Nfa, b: readonly number[]): number[] {
  const ra = nextRanges(x, a);
  const rb = nextRanges(y, b);
  const cuts = new Set<number>();
  for (const [lo, hi] of [...ra, ...rb]) cuts.add(lo).add(hi + 1);
  return [...cuts].filter((cp) => inRanges(ra, cp));
}

/** The NFA of a pattern as JSON Schema searches with it; undefined when it does not parse or is past the bounds. */
export function patternNfa(pattern: string): Nfa | undefined {
  const parsed = parsePattern(pattern);
  return parsed.ok ? languageNfa({ t: "pattern", pattern: parsed.value }) : undefined;
}

/** Of two patterns, one whose strings the other holds all of (it stands for both); undefined when neither is proven. */
export function narrowerPattern(a: string, b: string): string | undefined {
  const [na, nb] = [patternNfa(a), patternNfa(b)];
  if (!na || !nb) return undefined;
  if (languageIncluded(na, nb)) return a;
  if (languageIncluded(nb, na)) return b;
  return undefined;
}
