// Owns: a format's pattern beside a pattern that only fixes how the string starts (`uri` beside
// `^(https?|ftp)://`, `uri` beside `^mailto:`): the format's strings after each of those prefixes, read by
// derivatives and written as one pattern. Kept only when proven inside both patterns.

import { boundedPattern } from "./schema-bounds.js";
import type { ParsedPattern, Re } from "./regex.js";
import { alt, derive, seq, source } from "./regex-derive.js";
import { languageIncluded, languageNfa } from "./regex-overlap.js";

/** Most prefixes one pattern may spell (each is a branch of the result). */
const MAX_PREFIXES = 32;
/** Most code points one class of a prefix may hold (each is a prefix of its own). */
const MAX_CLASS = 4;

/** Every string `re` spells, as code points; undefined when it repeats without bound or spells too many. */
function strings(re: Re): number[][] | undefined {
  switch (re.t) {
    case "set": {
      const cps = re.ranges.flatMap(([lo, hi]) => (hi - lo < MAX_CLASS ? Array.from({ length: hi - lo + 1 }, (_, i) => lo + i) : [-1]));
      return cps.includes(-1) || cps.length > MAX_CLASS ? undefined : cps.map((cp) => [cp]);
    }
    case "alt": {
      const out: number[][] = [];
      for (const i of re.items) {
        const s = strings(i);
        if (!s || out.length + s.length > MAX_PREFIXES) return undefined;
        out.push(...s);
      }
      return out;
    }
    case "seq": {
      let out: number[][] = [[]];
      for (const i of re.items) {
        const s = strings(i);
        if (!s || out.length * s.length > MAX_PREFIXES) return undefined;
        out = out.flatMap((a) => s.map((b) => [...a, ...b]));
      }
      return out;
    }
    case "rep": {
      if (re.max === undefined) return undefined;
      const parts: Re[] = [];
      for (let n = re.min; n <= re.max; n++) parts.push({ t: "seq", items: Array.from({ length: n }, () => re.item) });
      return strings({ t: "alt", items: parts });
    }
  }
}

/** The prefixes `p` fixes: every branch anchored at the start only, its strings listed; undefined otherwise. */
function prefixes(p: ParsedPattern): number[][] | undefined {
  const out: number[][] = [];
  for (const b of p.branches) {
    if (!b.start || b.end) return undefined;
    const s = strings(b.re);
    if (!s || out.length + s.length > MAX_PREFIXES) return undefined;
    out.push(...s);
  }
  // A prefix that starts with another adds nothing: the shorter one's strings hold it.
  const key = (w: number[]) => String.fromCodePoint(...w);
  return out.filter((w, i) => !out.some((v, j) => j !== i && key(w).startsWith(key(v)) && (v.length < w.length || j < i)));
}

const nfa = (p: ParsedPattern) => languageNfa({ t: "pattern", pattern: p });

/**
 * The strings of `whole` (a format's pattern, anchored at both ends) that start as `starts` says, as pattern
 * source; undefined when `starts` fixes more than prefixes or the result is not proven inside both.
 */
export function patternAfterPrefixes(whole: string, starts: string): string | undefined {
  const [w, s] = [boundedPattern(whole), boundedPattern(starts)];
  if (!w.ok || !s.ok || w.value.branches.some((b) => !b.start || !b.end)) return undefined;
  const words = prefixes(s.value);
  if (!words) return undefined;
  const body = alt(w.value.branches.map((b) => b.re));
  if (!body) return undefined;
  const options: Re[] = [];
  for (const word of words) {
    let rest: Re | null = body;
    for (const cp of word) rest = rest && derive(rest, cp);
    if (rest) options.push(seq([...word.map((cp): Re => ({ t: "set", ranges: [[cp, cp]] })), rest]));
  }
  const both = alt(options);
  if (!both) return undefined;
  const text = `^(?:${source(both)})$`;
  const made = boundedPattern(text);
  if (!made.ok) return undefined;
  const [m, x, y] = [nfa(made.value), nfa(w.value), nfa(s.value)];
  return m && x && y && languageIncluded(m, x) && languageIncluded(m, y) ? text : undefined;
}
