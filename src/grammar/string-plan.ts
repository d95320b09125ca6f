// Owns: what a string schema costs and how its content is spelled: a format, a single repeated character
// class (from a simple pattern), a general pattern, or plain text; and the checks that refuse a pattern whose
// length bounds the grammar cannot honour.

import { err, ok, type Result } from "../errors.js";
import type { CodeRange } from "./gbnf.js";
import { type Caps, patternCapsSplits, type PreparedPattern, preparePattern, setBytes, universe } from "./regex-gbnf.js";
import { intersect, type ParsedPattern } from "./regex.js";
import { pointer, unsupported } from "./schema-keywords.js";
import { FORMAT_LENGTHS, type StringFormat } from "./string-formats.js";
import { atLeastLength } from "./pattern-length.js";
import { languageIncluded, languageNfa, MAX_UNROLLED_LENGTH } from "./regex-overlap.js";
import { ownLanguage } from "./regex-dfa.js";
import type { Charset } from "./text-chain.js";

/** A string made of one character class repeated `min`..`max` times (max undefined = unbounded). */
export interface CharRepeat {
  ranges: CodeRange[];
  min: number;
  max?: number;
}

/** Least budget the content needs and the most it can spell (bytes, without quotes). */
export interface StringPlan {
  min: number;
  max: number;
}

export interface StringShape {
  minLength: number;
  maxLength?: number;
  format?: StringFormat;
  pattern?: ParsedPattern;
  chars?: CharRepeat;
}

/** `^C*$`, `^C+$`, `^C{m,n}$` or `^C$` → the class and counts; undefined for any other pattern. */
export function classRepeat(p: ParsedPattern): CharRepeat | undefined {
  if (p.branches.length !== 1) return undefined;
  const { re, start, end } = p.branches[0]!;
  if (!start || !end) return undefined;
  // A lone item may stand unwrapped (boundedPattern flattens a one-item sequence).
  const item = re.t === "seq" ? (re.items.length === 1 ? re.items[0]! : undefined) : re;
  if (!item) return undefined;
  if (item.t === "set") return { ranges: item.ranges, min: 1, max: 1 };
  if (item.t === "rep" && item.item.t === "set") return { ranges: item.item.ranges, min: item.min, max: item.max };
  return undefined;
}

/**
 * Combine a pattern with minLength/maxLength at lowering time: a class repeat absorbs the bounds; a general
 * pattern must already imply minLength and fit maxLength, else the keyword is refused.
 */
/** The shape no string has (a class of no characters, one of them). */
const NO_STRING: StringShape = { minLength: 1, maxLength: 1, chars: { ranges: [], min: 1, max: 1 } };

export function shapeString(shape: StringShape, path: string, tagStarts?: readonly CodeRange[]): Result<StringShape> {
  if (shape.format) {
    const [lo, hi] = FORMAT_LENGTHS[shape.format];
    if (shape.minLength > lo) return err(unsupported(pointer(path, "minLength"), `minLength ${shape.minLength} with format ${shape.format} is not supported`));
    if (shape.maxLength !== undefined && shape.maxLength < hi) {
      return err(unsupported(pointer(path, "maxLength"), `maxLength ${shape.maxLength} with format ${shape.format} is not supported`));
    }
    return ok(shape);
  }
  if (!shape.pattern) return ok(shape);
  const rep = classRepeat(shape.pattern);
  if (rep) {
    const min = Math.max(rep.min, shape.minLength);
    const max = Math.min(rep.max ?? Infinity, shape.maxLength ?? Infinity);
    return ok({ minLength: min, maxLength: Number.isFinite(max) ? max : undefined, chars: { ranges: rep.ranges, min, max: Number.isFinite(max) ? max : undefined } });
  }
  let prepared = preparePattern(shape.pattern, "json", tagStarts);
  // A pattern no string matches at all (`/^x/`: a `^` after a character): no string is valid, which is exact.
  if (!prepared && ownLanguage(shape.pattern) === null) return ok(NO_STRING);
  if (!prepared) return err(unsupported(pointer(path, "pattern"), "pattern matches no string the grammar can spell (it needs control characters, or a `<` that a tag's first letter or `/` may follow)"));
  if (shape.minLength > prepared.tight.minCps) {
    const longer = longerPattern(shape.pattern, shape.minLength);
    prepared = longer && preparePattern(longer, "json", tagStarts);
    if (!longer || !prepared || prepared.tight.minCps < shape.minLength) {
      return err(unsupported(pointer(path, "minLength"), `minLength together with a pattern that allows shorter strings is supported only where one repeated class carries the difference, minLength is 1, or minLength is at most ${MAX_UNROLLED_LENGTH} and the pattern's automaton is small`));
    }
    shape = { ...shape, pattern: longer };
  }
  if (shape.maxLength !== undefined && prepared.tight.maxCps > shape.maxLength) {
    return err(unsupported(pointer(path, "maxLength"), "maxLength shorter than the pattern's shortest spelling is not supported"));
  }
  return ok(shape);
}

/** The pattern's strings of at least `m` code points (pattern-length.ts), kept only when proven inside the pattern. */
function longerPattern(p: ParsedPattern, m: number): ParsedPattern | undefined {
  const longer = atLeastLength(p, m);
  const [inner, outer] = [longer && languageNfa({ t: "pattern", pattern: longer }), languageNfa({ t: "pattern", pattern: p })];
  if (longer && inner && outer && languageIncluded(inner, outer)) return longer;
  // Else the pattern's automaton beside "at least m of anything" (spelled exactly only up to the unrolled length).
  return m <= MAX_UNROLLED_LENGTH ? (ownLanguage(p, m) ?? undefined) : undefined;
}

/** Pattern nodes one emit step stands for (a measurement visits every node of the pattern once, ~30 ns each). */
export const PATTERN_NODES_PER_STEP = 64;

/** Plans, prepared patterns and pattern caps of one compile (caches by node). */
export class StringPlanner {
  /** `tagStarts`: what may not follow a pattern's `<` in the compile's format (text-chain.ts's tagStarts). */
  constructor(private readonly tagStarts?: readonly CodeRange[]) {}

  private readonly prepared = new WeakMap<ParsedPattern, Map<Charset, PreparedPattern | undefined>>();
  private readonly caps = new WeakMap<PreparedPattern, Map<string, Caps[] | undefined>>();
  /**
   * Emit steps the pattern cap searches took (PATTERN_NODES_PER_STEP nodes measured per step): the emitter
   * counts them against SCHEMA_LIMITS.maxEmitSteps with its own, so no pattern escapes the compile's bound.
   */
  patternSteps = 0;

  /** The repetition caps of a pattern's branches within a budget, searched once per (pattern, budget, maxLength). */
  patternCaps(p: PreparedPattern, maxBytes: number, maxCps: number): Caps[] | undefined {
    let byBudget = this.caps.get(p);
    if (!byBudget) this.caps.set(p, (byBudget = new Map()));
    const key = `${maxBytes}:${maxCps}`;
    if (!byBudget.has(key)) byBudget.set(key, patternCapsSplits(p, maxBytes, maxCps, () => (this.patternSteps += p.size / PATTERN_NODES_PER_STEP)));
    return byBudget.get(key);
  }

  pattern(p: ParsedPattern, charset: Charset): PreparedPattern | undefined {
    let byCharset = this.prepared.get(p);
    if (!byCharset) this.prepared.set(p, (byCharset = new Map()));
    if (!byCharset.has(charset)) byCharset.set(charset, preparePattern(p, charset, this.tagStarts));
    return byCharset.get(charset);
  }

  plan(s: StringShape): StringPlan {
    if (s.format) {
      // A format of bounded length is planned at its longest; `regex`, unbounded, at its shortest (uncounted).
      const [shortest, longest] = FORMAT_LENGTHS[s.format];
      return { min: Number.isFinite(longest) ? longest : shortest, max: longest };
    }
    if (s.chars) {
      const ranges = intersect(s.chars.ranges, universe("json"));
      if (ranges.length === 0) return s.chars.min === 0 ? { min: 0, max: 0 } : { min: Infinity, max: Infinity };
      const [, bytes] = setBytes(ranges, "json");
      return { min: s.chars.min * bytes, max: s.chars.max === undefined ? Infinity : s.chars.max * bytes };
    }
    if (s.pattern) {
      const p = this.pattern(s.pattern, "json");
      if (!p) return { min: Infinity, max: Infinity };
      return { min: p.tight.maxBytes, max: p.loose.maxBytes };
    }
    return { min: s.minLength, max: s.maxLength === undefined ? Infinity : 4 * s.maxLength };
  }
}

