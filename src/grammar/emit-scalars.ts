// Owns: GBNF for scalar values within a byte budget: strings (plain, format, character-class repeat, pattern),
// integers, numbers, literals (enum/const), null and booleans. Each returns its expression and worst bytes.

import { canonicalJson, JSON_SPELLING, jsonString, utf8Length } from "./canonical-json.js";
import { literal, type RuleSet } from "./gbnf.js";
import { fitDigits, fractionalBytes, fractionalRule, integerBytes, integerRule, MAX_DIGITS, numberBytes, numberRule } from "./numbers.js";
import { multiplesRule } from "./integer-multiples.js";
import { emitPattern, MAX_REPEAT, setBytes, setExpr, universe } from "./regex-gbnf.js";
import { intersect } from "./regex.js";
import type { Node } from "./schema-nodes.js";
import { FORMAT_LENGTHS, formatRule } from "./string-formats.js";
import type { StringPlanner } from "./string-plan.js";
import type { TextChains } from "./text-chain.js";

/** An emitted value: a GBNF expression and the most bytes it can spell. */
export interface Emitted {
  expr: string;
  worst: number;
}

export interface ScalarContext {
  rules: RuleSet;
  json: TextChains;
  raw: TextChains;
  planner: StringPlanner;
  /** Strings without maxLength are not counted (budget split "shared"). Default: false. */
  uncounted?: boolean;
}

/** A string value (quoted JSON, or raw text when `raw`) within `budget` bytes; undefined when it cannot fit. */
export function emitString(ctx: ScalarContext, n: Node & { k: "string" }, budget: number, raw: boolean): Emitted | undefined {
  const q = raw ? 0 : 2;
  const space = budget - q;
  if (space < 0) return undefined;
  const content = stringContent(ctx, n, space, raw);
  if (!content) return undefined;
  const expr = raw ? content.expr : `"\\"" ${content.expr} "\\""`;
  const name = raw ? `text-${content.name}` : `string-${content.name}`;
  return { expr: ctx.rules.add(name, expr), worst: content.worst + q };
}

function stringContent(
  ctx: ScalarContext,
  n: Node & { k: "string" },
  space: number,
  raw: boolean,
): { expr: string; worst: number; name: string } | undefined {
  const charset = raw ? "raw" : "json";
  const chains = raw ? ctx.raw : ctx.json;
  if (n.format) {
    const len = FORMAT_LENGTHS[n.format][1];
    // An unbounded format (regex) is left uncounted, as a string without maxLength is, under the shared split only.
    if (!Number.isFinite(len)) return ctx.uncounted ? { expr: formatRule(ctx.rules, n.format), worst: Infinity, name: n.format } : undefined;
    return len <= space ? { expr: formatRule(ctx.rules, n.format), worst: len, name: n.format } : undefined;
  }
  if (n.chars) {
    const ranges = intersect(n.chars.ranges, universe(charset));
    if (ranges.length === 0) return n.chars.min === 0 ? { expr: '""', worst: 0, name: "empty" } : undefined;
    const [, bytes] = setBytes(ranges, charset);
    const count = Math.min(n.chars.max ?? Infinity, Math.floor(space / bytes), MAX_REPEAT);
    if (count < n.chars.min) return undefined;
    const cls = setExpr(ranges, charset);
    const item = cls.startsWith("[") ? cls : ctx.rules.add(`${n.hint}-char`, cls);
    const expr = count === 0 ? '""' : count === n.chars.min ? `${item}{${count}}` : `${item}{${n.chars.min},${count}}`;
    return { expr, worst: count * bytes, name: n.hint };
  }
  if (n.pattern) {
    const prepared = ctx.planner.pattern(n.pattern, charset);
    if (!prepared) return undefined;
    const caps = ctx.planner.patternCaps(prepared, space, n.maxLength ?? Infinity);
    if (!caps) return undefined;
    const r = emitPattern(ctx.rules, prepared, caps, n.hint);
    return { expr: ctx.rules.add(`${n.hint}-pattern`, r.expr), worst: r.maxBytes, name: n.hint };
  }
  const m = n.minLength;
  const max = n.maxLength;
  if (ctx.uncounted && max === undefined && m * chains.requiredUnitBytes <= space) {
    // Budget split "shared": a string the schema leaves unbounded is not counted (the caller's guard ends it).
    const expr = m > 0 ? `${chains.requiredUnit()}{${m}} ${chains.unbounded()}` : chains.unbounded();
    return { expr, worst: Infinity, name: m > 0 ? `min-${m}` : "any" };
  }
  if (max !== undefined && 4 * max <= space) {
    // Few enough code points that every spelling fits: count code points exactly.
    const chain = chains.codePoints(max - m);
    const expr = m > 0 ? `${chains.plainChar()}{${m}} ${chain}` : chain;
    return { expr, worst: 4 * max, name: m > 0 ? `min-${m}-max-${max}cp` : `max-${max}cp` };
  }
  const cap = Math.min(space, max ?? Infinity);
  if (m * chains.requiredUnitBytes <= cap) {
    const rest = cap - m * chains.requiredUnitBytes;
    const expr = m > 0 ? `${chains.requiredUnit()}{${m}} ${chains.bytes(rest)}` : chains.bytes(rest);
    return { expr, worst: cap, name: m > 0 ? `min-${m}-max-${cap}b` : `max-${cap}b` };
  }
  if (m <= cap) {
    const expr = `${chains.asciiChar()}{${m}} ${chains.bytes(cap - m)}`;
    return { expr, worst: cap, name: `ascii-min-${m}-max-${cap}b` };
  }
  return undefined;
}

function boundName(v: number): string {
  return (v < 0 ? `m${-v}` : String(v)).replace(".", "p");
}

/** An integer or number value within `budget` bytes. */
export function emitNumber(ctx: ScalarContext, n: Node & { k: "integer" | "number" }, budget: number): Emitted | undefined {
  if (n.k === "integer") {
    const d = fitDigits((k) => integerBytes(n.lo, n.hi, k), budget);
    const rule = d === undefined ? undefined : n.mult ? multiplesRule(n.lo, n.hi, d, n.mult, (h, b) => ctx.rules.add(h, b)) : integerRule(n.lo, n.hi, d);
    if (!rule) return undefined;
    const size = rule.maxBytes < integerBytes(n.lo, n.hi, MAX_DIGITS)! ? `-${rule.maxBytes}b` : "";
    const name = `integer${n.mult ? `-mult-${n.mult}` : ""}${n.lo === undefined ? "" : `-min-${boundName(n.lo)}`}${n.hi === undefined ? "" : `-max-${boundName(n.hi)}`}${size}`;
    return { expr: ctx.rules.add(name, rule.expr), worst: rule.maxBytes };
  }
  if (n.fractional) {
    const f = fitDigits(fractionalBytes, budget);
    if (f === undefined) return undefined;
    const rule = fractionalRule(f);
    return { expr: ctx.rules.add(`number-fraction-${rule.maxBytes}b`, rule.expr), worst: rule.maxBytes };
  }
  const r = n.frac ?? MAX_DIGITS;
  const d = fitDigits((k) => numberBytes(n.lo, n.hi, k, r), budget);
  const rule = d === undefined ? undefined : numberRule(n.lo, n.hi, d, true, Math.min(r, d));
  if (!rule) return undefined;
  const side = (tag: string, b: { value: number; open: boolean } | undefined) =>
    b === undefined ? "" : `-${b.open ? "above" : tag}-${boundName(b.value)}`;
  const lo = side("min", n.lo);
  const hi = n.hi === undefined ? "" : `-${n.hi.open ? "below" : "max"}-${boundName(n.hi.value)}`;
  const size = rule.maxBytes < numberBytes(n.lo, n.hi, MAX_DIGITS, r)! ? `-${rule.maxBytes}b` : "";
  const places = n.frac === undefined ? "" : `-frac${n.frac}`;
  return { expr: ctx.rules.add(`number${lo}${hi}${places}${size}`, rule.expr), worst: rule.maxBytes };
}

/** Text of a literal: canonical JSON, or a string's raw text in a qwen3coder value. */
export function literalText(value: unknown, raw: boolean): string {
  return raw && typeof value === "string" ? value : canonicalJson(value);
}

/** Python's spelling of true/false/null (the Qwen3-Coder template prints scalar values with `str()`). */
const PYTHON_SCALARS: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [true, "True"],
  [false, "False"],
  [null, "None"],
]);

/** enum/const values that fit `budget`. */
export function emitLiteral(ctx: ScalarContext, n: Node & { k: "literal" }, budget: number, raw: boolean): Emitted | undefined {
  const spelled = n.values.flatMap((v) => (raw && PYTHON_SCALARS.has(v) ? [literalText(v, raw), PYTHON_SCALARS.get(v)!] : [literalText(v, raw)]));
  const texts = spelled.filter((t) => utf8Length(t) <= budget);
  if (texts.length === 0) return undefined;
  const worst = Math.max(...texts.map(utf8Length));
  const alts = [...new Set(texts)].map(literal);
  return { expr: alts.length === 1 ? alts[0]! : ctx.rules.add(n.hint, alts.join(" | ")), worst };
}

/** null; a qwen3coder value may also be Python's `None`. */
export function emitNull(ctx: ScalarContext, budget: number, raw: boolean): Emitted | undefined {
  if (budget < 4) return undefined;
  return raw ? { expr: ctx.rules.add("null-value", '"null" | "None"'), worst: 4 } : { expr: '"null"', worst: 4 };
}

/** true/false; a qwen3coder value may also be Python's `True`/`False`. */
export function emitBoolean(ctx: ScalarContext, budget: number, raw: boolean): Emitted | undefined {
  if (budget < 5) return undefined;
  const body = raw ? '"true" | "false" | "True" | "False"' : '"true" | "false"';
  return { expr: ctx.rules.add(raw ? "boolean-value" : "boolean", body), worst: 5 };
}

/** `"name": ` as a GBNF literal. */
export function keyLiteral(name: string): string {
  return literal(jsonString(name) + JSON_SPELLING.keySep);
}
