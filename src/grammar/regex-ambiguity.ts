// Owns: bounding the ambiguity of a parsed `pattern` before it becomes GBNF. Nested repetitions such as
// `^([a-z]*)*$` are rewritten to the single repetition they equal (`[a-z]*`); a repetition of something that
// itself repeats without bound (or may be empty) is kept only when its iterations cannot be split two ways (a delimiter, runs of disjoint
// classes, or a body no string of which is a prefix of another), else the pattern is refused: an ambiguous grammar costs llama.cpp's engine exponential work per token.

import { intersect, normalizeRanges, nullable, type Re } from "./regex.js";
import type { CodeRange } from "./gbnf.js";
import { languagesDisjoint, languageNfa } from "./regex-overlap.js";

/** `(X*)*`, `(X+)*`, `(X*)+`, `(X?)*`, `(X+){n,m}` … as the one repetition they equal; one-item groups unwrapped. */
export function flattenRepeats(re: Re): Re {
  switch (re.t) {
    case "set":
      return re;
    case "seq": {
      const items = re.items.map(flattenRepeats).flatMap((i) => (i.t === "seq" ? i.items : [i]));
      return items.length === 1 ? items[0]! : { t: "seq", items };
    }
    case "alt": {
      const items = re.items.map(flattenRepeats);
      return items.length === 1 ? items[0]! : { t: "alt", items };
    }
    case "rep": {
      const item = flattenRepeats(re.item);
      if (item.t === "rep" && (re.max === undefined || re.max > 1)) {
        // Inner X{0,∞} or X{1,∞}: any number of outer iterations is one inner run.
        if (item.max === undefined && item.min <= 1) {
          const min = item.min === 0 || re.min === 0 ? 0 : re.min;
          return { t: "rep", item: item.item, min, max: undefined };
        }
        // Inner X? under an unbounded outer repetition: X*.
        if (item.min === 0 && item.max === 1 && re.max === undefined) return { t: "rep", item: item.item, min: 0, max: undefined };
      }
      return { ...re, item };
    }
  }
}

function alphabet(re: Re): CodeRange[] {
  switch (re.t) {
    case "set":
      return re.ranges;
    case "rep":
      return alphabet(re.item);
    default:
      return normalizeRanges(re.items.flatMap(alphabet));
  }
}

/** Whether `re` holds an unbounded repetition (bounded ones only multiply the grammar, never its ambiguity). */
function repeats(re: Re): boolean {
  switch (re.t) {
    case "set":
      return false;
    case "rep":
      return re.max === undefined || repeats(re.item);
    default:
      return re.items.some(repeats);
  }
}

const disjoint = (a: CodeRange[], b: CodeRange[]) => intersect(a, b).length === 0;

/** Whether iterations of `body` can be told apart: a delimiter class at one end, or runs of disjoint classes. */
function selfDelimiting(body: Re): boolean {
  const items = body.t === "seq" ? body.items : [body];
  if (items.length < 2) return false;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const rest = (from: number, to: number) => normalizeRanges(items.slice(from, to).flatMap(alphabet));
  if (first.t === "set" && disjoint(first.ranges, rest(1, items.length))) return true;
  if (last.t === "set" && disjoint(last.ranges, rest(0, items.length - 1))) return true;
  // Runs: each item a class or a repeated class, at least once, neighbours (and the two ends) disjoint.
  const runs = items.map((i) => (i.t === "set" ? { ranges: i.ranges, min: 1 } : i.t === "rep" && i.item.t === "set" ? { ranges: i.item.ranges, min: i.min } : undefined));
  if (runs.some((r) => r === undefined || r.min < 1)) return false;
  for (let i = 1; i < runs.length; i++) if (!disjoint(runs[i - 1]!.ranges, runs[i]!.ranges)) return false;
  return disjoint(runs[0]!.ranges, runs[runs.length - 1]!.ranges);
}

const anchored = (re: Re) => languageNfa({ t: "pattern", pattern: { branches: [{ re, start: true, end: true }] } });

/**
 * Whether no string of `body` is a proper prefix of another: then a run of its iterations splits one way (the
 * loops a DFA is read back with are such). Proven by an NFA search; false when unsure.
 */
function prefixFree(body: Re): boolean {
  const whole = anchored(body);
  const longer = anchored({ t: "seq", items: [body, { t: "rep", item: { t: "set", ranges: [[0, 0x10ffff]] }, min: 1, max: undefined }] });
  return whole !== undefined && longer !== undefined && languagesDisjoint(whole, longer);
}

/** The first repetition whose iterations could be split in more than one way; undefined when there is none. */
export function ambiguousRepeat(re: Re): Re | undefined {
  switch (re.t) {
    case "set":
      return undefined;
    case "rep":
      if ((re.max === undefined || re.max > 1) && (nullable(re.item) || (repeats(re.item) && !selfDelimiting(re.item) && !prefixFree(re.item)))) return re;
      return ambiguousRepeat(re.item);
    default:
      for (const i of re.items) {
        const a = ambiguousRepeat(i);
        if (a) return a;
      }
      return undefined;
  }
}
