// Owns: which characters the strings a pattern matches can start with, and whether it matches the empty string:
// enough to tell two patternProperties patterns apart by their first character (`^/` and `^[^/]`).

import type { CodeRange } from "./gbnf.js";
import { intersect, normalizeRanges, parsePattern, type Re } from "./regex.js";

const ANY: CodeRange[] = [[0, 0x10ffff]];

/** First characters of the non-empty strings `re` spells, and whether it spells the empty one. */
function first(re: Re): { ranges: CodeRange[]; empty: boolean } {
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
