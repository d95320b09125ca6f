// Owns: which characters the strings a pattern matches can start with, whether it matches the empty string, and
// which characters they can hold at all: enough to tell two patternProperties patterns apart by their first
// character (`^/` and `^[^/]`), and to spell keys no pattern matches (see pattern-properties.ts).

import type { CodeRange } from "./gbnf.js";
import { intersect, normalizeRanges, parsePattern, type Re } from "./regex.js";

const ANY: CodeRange[] = [[0, 0x10ffff]];

/** First characters of the non-empty strings `re` spells, and whether it spells the empty one. */
export function first(re: Re): { ranges: CodeRange[]; empty: boolean } {
  switch (re.t) {
    case "set":
      return { ranges: re.ranges, empty: false };
    case "rep": {
      if (re.max === 0) return { ranges: [], empty: true };
      const f = first(re.item);
      return { ranges: f.ranges, empty: re.min === 0 || f.empty };
    }
    case "alt": {
      const fs = re.items.map(first);
      return { ranges: normalizeRanges(fs.flatMap((f) => f.ranges)), empty: fs.some((f) => f.empty) };
    }
    case "seq": {
      const ranges: CodeRange[] = [];
      for (const item of re.items) {
        const f = first(item);
        ranges.push(...f.ranges);
        if (!f.empty) return { ranges: normalizeRanges(ranges), empty: false };
      }
      return { ranges: normalizeRanges(ranges), empty: true };
    }
  }
}

/**
 * What keys a pattern (searched, as JSON Schema matches it) can start with, and whether it matches "". A branch
 * not anchored at its start, or one that matches "" and is not anchored at its end, matches every key.
 * Undefined when the pattern is outside the parsed subset.
 */
export function patternFirst(pattern: string): { ranges: CodeRange[]; empty: boolean } | undefined {
  const parsed = parsePattern(pattern);
  if (!parsed.ok) return undefined;
  const ranges: CodeRange[] = [];
  let empty = false;
  for (const b of parsed.value.branches) {
    const f = first(b.re);
    empty ||= f.empty;
    ranges.push(...(!b.start || (f.empty && !b.end) ? ANY : f.ranges));
  }
  return { ranges: normalizeRanges(ranges), empty };
}

/** Whether no key matches both patterns, told by their first characters (false when unsure). */
export function disjointByFirst(a: string, b: string): boolean {
  const x = patternFirst(a);
  const y = patternFirst(b);
  return x !== undefined && y !== undefined && !(x.empty && y.empty) && intersect(x.ranges, y.ranges).length === 0;
}

/** Every character `re` can spell anywhere. */
function alphabet(re: Re): CodeRange[] {
  switch (re.t) {
    case "set":
      return re.ranges;
    case "rep":
      return re.max === 0 ? [] : alphabet(re.item);
    case "alt":
    case "seq":
      return normalizeRanges(re.items.flatMap(alphabet));
  }
}

/**
 * The characters of every key a pattern matches, when it is anchored at both ends in every branch (`^[a-z0-9]+$`):
 * a key holding any other character matches it not. Undefined when a match may hold any character (a branch
 * that is searched, not anchored) or the pattern is outside the parsed subset.
 */
export function patternAlphabet(pattern: string): CodeRange[] | undefined {
  const parsed = parsePattern(pattern);
  if (!parsed.ok || parsed.value.branches.some((b) => !b.start || !b.end)) return undefined;
  return normalizeRanges(parsed.value.branches.flatMap((b) => alphabet(b.re)));
}

/** Most words `patternWords` spells out, and most characters in one: past them a pattern is not "a few words". */
const MOST_WORDS = 64;
const MOST_WORD_LENGTH = 128;
/** Most characters one set of a few words' pattern may stand for (`[0-3]`). */
const MOST_SET_CHARS = 4;

/** The words `re` matches, or undefined where they are more than MOST_WORDS (or unbounded). */
function words(re: Re): string[] | undefined {
  switch (re.t) {
    case "set": {
      const cps = re.ranges.flatMap(([lo, hi]) => (hi - lo < MOST_SET_CHARS ? Array.from({ length: hi - lo + 1 }, (_, i) => lo + i) : [-1]));
      return cps.length > MOST_SET_CHARS || cps.includes(-1) ? undefined : cps.map((cp) => String.fromCodePoint(cp));
    }
    case "alt": {
      const out: string[] = [];
      for (const item of re.items) {
        const w = words(item);
        if (!w || out.push(...w) > MOST_WORDS) return undefined;
      }
      return out;
    }
    case "seq": {
      let out = [""];
      for (const item of re.items) {
        const w = words(item);
        if (!w || out.length * w.length > MOST_WORDS) return undefined;
        out = out.flatMap((a) => w.map((b) => a + b));
        if (out.some((s) => s.length > MOST_WORD_LENGTH)) return undefined;
      }
      return out;
    }
    case "rep": {
      if (re.max === undefined) return undefined;
      const one = words(re.item);
      if (!one) return undefined;
      // Any count of nothing is nothing (a schema's `(){99999999}` costs no loop).
      if (one.every((w) => w === "")) return [""];
      // The words of n repetitions, from those of n - 1: each step lengthens a word, so MOST_WORD_LENGTH ends it.
      const out: string[] = [];
      let run = [""];
      for (let n = 0; ; n++) {
        if (n >= re.min && out.push(...run) > MOST_WORDS) return undefined;
        if (n === re.max) return out;
        if (run.length * one.length > MOST_WORDS) return undefined;
        run = run.flatMap((a) => one.map((b) => a + b));
        if (run.some((w) => w.length > MOST_WORD_LENGTH)) return undefined;
      }
    }
  }
}

/**
 * Every key a pattern anchored at both ends matches, where they are a few words
 * (`^(consumer_(key|secret)|access_token_(key|secret))$`, `^v[12]$`); undefined for any other pattern.
 */
export function patternWords(pattern: string): string[] | undefined {
  const parsed = parsePattern(pattern);
  if (!parsed.ok || parsed.value.branches.some((b) => !b.start || !b.end)) return undefined;
  const out: string[] = [];
  for (const b of parsed.value.branches) {
    const w = words(b.re);
    if (!w || out.push(...w) > MOST_WORDS) return undefined;
  }
  return [...new Set(out)];
}
