// Owns: reading a schema's scalar keywords for lowering: number bounds (JSON Schema and draft-04 forms, the
// int32 format's range, bounds past what the grammar spells) and a `pattern` parsed with its ambiguity bounded.

import { err, ok, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { tooLarge } from "./limits.js";
import { MAX_DIGITS, type Bound } from "./numbers.js";
import { ambiguousRepeat, flattenRepeats } from "./regex-ambiguity.js";
import { parsePattern, type Re, type RegexResult } from "./regex.js";
import { rewriteLoops } from "./regex-loops.js";
import { languageIncluded, languageNfa } from "./regex-overlap.js";
import { ownLanguage } from "./regex-dfa.js";
import { invalid, pointer } from "./schema-keywords.js";

/** Integer bounds the grammar cannot reach (it spells at most MAX_DIGITS digits): the keyword is refused. */
export function farBound(lo: number | undefined, hi: number | undefined, loKey: string | undefined, hiKey: string | undefined, path: string) {
  const cap = 10 ** MAX_DIGITS - 1;
  if (lo !== undefined && lo > cap) return tooLarge(pointer(path, loKey!), `a lower bound above ${cap} is not supported (the grammar spells at most ${MAX_DIGITS} digits)`);
  if (hi !== undefined && hi < -cap) return tooLarge(pointer(path, hiKey!), `an upper bound below -${cap} is not supported (the grammar spells at most ${MAX_DIGITS} digits)`);
  return undefined;
}

export function bounds(
  s: JsonSchema,
  path: string,
): Result<{ lo?: Bound; hi?: Bound; loKey?: string; hiKey?: string }> {
  let lo: Bound | undefined;
  let hi: Bound | undefined;
  let loKey: string | undefined;
  let hiKey: string | undefined;
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
    const v = s[key];
    if (v === undefined || typeof v === "boolean") continue;
    if (typeof v !== "number" || !Number.isFinite(v)) return err(invalid(pointer(path, key), `${key} must be a number`));
  }
  if (typeof s.minimum === "number") [lo, loKey] = [{ value: s.minimum, open: s.exclusiveMinimum === true }, "minimum"];
  if (typeof s.maximum === "number") [hi, hiKey] = [{ value: s.maximum, open: s.exclusiveMaximum === true }, "maximum"];
  if (typeof s.exclusiveMinimum === "number" && (lo === undefined || s.exclusiveMinimum >= lo.value)) {
    [lo, loKey] = [{ value: s.exclusiveMinimum, open: true }, "exclusiveMinimum"];
  }
  if (typeof s.exclusiveMaximum === "number" && (hi === undefined || s.exclusiveMaximum <= hi.value)) {
    [hi, hiKey] = [{ value: s.exclusiveMaximum, open: true }, "exclusiveMaximum"];
  }
  return ok({ lo, hi, loKey, hiKey });
}

/**
 * A pattern parsed, its nested repetitions flattened, an ambiguous repetition rewritten into one of the same
 * language that splits one way (regex-loops.ts: kept only when the two languages are proven equal), refused when a
 * repetition stays ambiguous.
 */
export function boundedPattern(source: string): RegexResult {
  const parsed = parsePattern(source);
  if (!parsed.ok) return parsed;
  const branches = parsed.value.branches.map((b) => ({ ...b, re: flattenRepeats(b.re) }));
  for (const b of branches) {
    if (!ambiguousRepeat(b.re)) continue;
    const rewritten = flattenRepeats(rewriteLoops(b.re));
    if (ambiguousRepeat(rewritten) || !sameLanguage(b.re, rewritten)) {
      // Else the pattern read off its own minimized DFA (regex-dfa.ts): one way to spell each string, when small enough.
      const read = ownLanguage(parsed.value);
      if (read && !read.branches.some((x) => ambiguousRepeat(x.re))) return { ok: true, value: read };
      return { ok: false, reason: "a repetition of something that repeats, which could match one text in many ways (an ambiguous grammar costs the sampler exponential work per token)" };
    }
    b.re = rewritten;
  }
  return { ok: true, value: { branches } };
}

/** Whether two expressions are proven to match the same strings (false when the search is unsure). */
function sameLanguage(a: Re, b: Re): boolean {
  const [x, y] = [a, b].map((re) => languageNfa({ t: "pattern", pattern: { branches: [{ re, start: true, end: true }] } }));
  return x !== undefined && y !== undefined && languageIncluded(x, y) && languageIncluded(y, x);
}

/** The schema with its bounds narrowed to ajv-formats' int32 range. */
export function int32Bounds(s: JsonSchema): JsonSchema {
  const lo = -(2 ** 31);
  const hi = 2 ** 31 - 1;
  const out = { ...s };
  if (typeof out.minimum !== "number" || out.minimum < lo) out.minimum = lo;
  if (typeof out.maximum !== "number" || out.maximum > hi) out.maximum = hi;
  return out;
}

/** k when `m` is 10^-k (0.1, 0.01, … up to 15 places): a multiple of it has at most k fraction digits. */
export function decimalPlaces(m: unknown): number | undefined {
  if (typeof m !== "number" || !(m > 0) || m >= 1) return undefined;
  for (let k = 1; k <= 15; k++) if (Number(`1e-${k}`) === m) return k;
  return undefined;
}
