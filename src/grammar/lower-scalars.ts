// Owns: lowering integers, numbers and strings: their bounds, multipleOf, formats and patterns.

import { err, ok, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import type { ParsedPattern } from "./regex.js";
import { boundedPattern, bounds, decimalPlaces, farBound, int32Bounds } from "./schema-bounds.js";
import { numberBoundsSpellable } from "./numbers.js";
import { invalid, pointer, unsupported } from "./schema-keywords.js";
import { ASSERTED_FORMATS, FORMAT_PATTERNS, FORMAT_SUPERSETS, isSupportedFormat, type StringFormat } from "./string-formats.js";
import { narrowerPattern } from "./regex-overlap.js";
import { patternAfterPrefixes } from "./pattern-prefix.js";
import { shapeString } from "./string-plan.js";
import type { Node } from "./schema-nodes.js";
import type { LowerContext } from "./lower-context.js";
import { MAX_MULTIPLE } from "./integer-multiples.js";
import { NOT_INTEGER } from "./not-values.js";

export function lowerInteger(cx: LowerContext, s: JsonSchema, path: string, hint: string): Result<Node> {
  const step = s.multipleOf;
  const mult = typeof step === "number" && Number.isInteger(step) && step >= 2 && step <= MAX_MULTIPLE ? step : undefined;
  if (step !== undefined && step !== 1 && mult === undefined) {
    return err(unsupported(pointer(path, "multipleOf"), `multipleOf is supported only as a whole number up to ${MAX_MULTIPLE} (or a power of ten below 1 on numbers)`));
  }
  const b = bounds(s.format === "int32" ? int32Bounds(s) : s, path);
  if (!b.ok) return b;
  const { lo, hi } = b.value;
  let min = lo === undefined ? undefined : lo.open ? Math.floor(lo.value) + 1 : Math.ceil(lo.value);
  let max = hi === undefined ? undefined : hi.open ? Math.ceil(hi.value) - 1 : Math.floor(hi.value);
  // The bounds rounded inward to multiples: the grammar's shortest and longest spellings are then exact.
  if (mult !== undefined && min !== undefined) min = Math.ceil(min / mult) * mult;
  if (mult !== undefined && max !== undefined) max = Math.floor(max / mult) * mult;
  const far = farBound(min, max, b.value.loKey, b.value.hiKey, path);
  if (far) return err(far);
  if (min !== undefined && max !== undefined && min > max) return ok(cx.never(path, hint));
  return ok(cx.node(path, hint, { k: "integer", lo: min, hi: max, ...(mult === undefined ? {} : { mult }) }));
}

export function lowerNumber(cx: LowerContext, s: JsonSchema, path: string, hint: string): Result<Node> {
  if (s[NOT_INTEGER] === true) {
    const beside = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"].filter((k) => k in s);
    if (beside.length > 0) return err(unsupported(pointer(path, "not"), `not of integer beside numbers with ${beside.join(", ")} is not supported`));
    return ok(cx.node(path, hint, { k: "number", fractional: true }));
  }
  // ajv-formats' int32 and int64 admit integers only.
  if (s.format === "int32" || s.format === "int64") return lowerInteger(cx, s, path, hint);
  // A whole multipleOf (1, 7, 12) admits integers only; 10^-k (0.01) at most k fraction digits. Others are refused.
  if (typeof s.multipleOf === "number" && Number.isInteger(s.multipleOf) && s.multipleOf >= 1) return lowerInteger(cx, s, path, hint);
  const frac = s.multipleOf === undefined ? undefined : decimalPlaces(s.multipleOf);
  if (s.multipleOf !== undefined && frac === undefined) {
    return err(unsupported(pointer(path, "multipleOf"), "multipleOf on numbers is supported only as 1 or a power of ten below it (0.1, 0.01, …)"));
  }
  const b = bounds(s, path);
  if (!b.ok) return b;
  if (!numberBoundsSpellable(b.value.lo, b.value.hi)) {
    return err(unsupported(pointer(path, b.value.loKey ?? b.value.hiKey!), "number bounds with fractions on both sides of one whole number are not supported"));
  }
  const { lo, hi } = b.value;
  const far = farBound(lo?.value, hi?.value, b.value.loKey, b.value.hiKey, path);
  if (far) return err(far);
  if (lo && hi && (lo.value > hi.value || (lo.value === hi.value && (lo.open || hi.open)))) return ok(cx.never(path, hint));
  return ok(cx.node(path, hint, frac === undefined ? { k: "number", lo, hi } : { k: "number", lo, hi, frac }));
}

export function lowerString(cx: LowerContext, s: JsonSchema, path: string, hint: string): Result<Node> {
  const minLength = s.minLength ?? 0;
  if (typeof minLength !== "number" || !Number.isInteger(minLength) || minLength < 0) {
    return err(invalid(pointer(path, "minLength"), "minLength must be a whole number ≥ 0"));
  }
  const maxLength = s.maxLength;
  if (maxLength !== undefined && (typeof maxLength !== "number" || !Number.isInteger(maxLength) || maxLength < 0)) {
    return err(invalid(pointer(path, "maxLength"), "maxLength must be a whole number ≥ 0"));
  }
  let format: StringFormat | undefined;
  let formatPattern: string | undefined;
  if (typeof s.format === "string" && isSupportedFormat(s.format)) format = s.format;
  else if (typeof s.format === "string" && FORMAT_PATTERNS[s.format]) formatPattern = FORMAT_PATTERNS[s.format]!.pattern;
  else if (typeof s.format === "string" && ASSERTED_FORMATS.has(s.format)) {
    return err(unsupported(pointer(path, "format"), `format "${s.format}" is not supported (supported: date, time, date-time, uuid, ${Object.keys(FORMAT_PATTERNS).join(", ")})`));
  }
  // Any other format asserts nothing (ajv ignores formats it does not know): ignored.
  let pattern: ParsedPattern | undefined;
  // A pattern beside a format: held where one language is proven to hold the other (see the string below).
  let narrow = typeof s.pattern === "string" && (formatPattern !== undefined || format) ? narrowerPattern(formatPattern ?? FORMAT_SUPERSETS[format!], s.pattern) : undefined;
  // Neither holds the other, but the pattern only fixes how the string starts: the format's strings after it.
  if (narrow === undefined && formatPattern !== undefined && typeof s.pattern === "string") narrow = patternAfterPrefixes(formatPattern, s.pattern);
  if (formatPattern !== undefined) {
    if (s.pattern !== undefined && narrow === undefined) return err(unsupported(pointer(path, "pattern"), "pattern together with format is not supported (unless one holds every string of the other, or the pattern only fixes how the string starts)"));
    // The narrower of the two: the format's own (the pattern then holds), or the pattern (every string of it
    // is one the format's spelling holds, so one ajv's format accepts).
    const parsed = boundedPattern(narrow ?? formatPattern);
    if (!parsed.ok) return err(unsupported(pointer(path, "format"), `format "${String(s.format)}": ${parsed.reason}`));
    pattern = parsed.value;
  } else if (s.pattern !== undefined) {
    // A format rule's strings all match the pattern (its superset pattern is proven to): the format alone is both.
    if (format && narrow !== FORMAT_SUPERSETS[format]) return err(unsupported(pointer(path, "pattern"), "pattern together with format is not supported (unless the pattern holds every string of the format)"));
    if (typeof s.pattern !== "string") return err(invalid(pointer(path, "pattern"), "pattern must be a string"));
    if (!format) {
      const parsed = boundedPattern(s.pattern);
      if (!parsed.ok) return err(unsupported(pointer(path, "pattern"), `pattern ${JSON.stringify(s.pattern)}: ${parsed.reason}`));
      pattern = parsed.value;
    }
  }
  if (maxLength !== undefined && minLength > maxLength) return ok(cx.never(path, hint));
  const shaped = shapeString({ minLength, maxLength, format, pattern }, path, cx.tagStarts);
  if (!shaped.ok) return shaped;
  const chars = shaped.value.chars;
  if (chars && chars.max !== undefined && chars.min > chars.max) return ok(cx.never(path, hint));
  return ok(cx.node(path, hint, { k: "string", ...shaped.value }));
}
