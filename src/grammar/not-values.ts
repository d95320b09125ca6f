// Owns: `not` of keywords whose complement is a value set the grammar already spells: `not` of enum/const beside
// a schema that is not an enum (the other values of each type: numbers between the banned ones, strings that
// leave a trie of the banned strings), `not` of a class-repeat pattern (too short, too long, or a character
// outside the class), `not` of items (an item that breaks it, through contains) and `not` of dependencies (the
// trigger present, a dependency missing or broken). Each answer is a list of variants whose union is exact.

import type { QtcError } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { classRepeat } from "./string-plan.js";
import { complement, parsePattern, type ParsedPattern } from "./regex.js";
import { flattenRepeats } from "./regex-ambiguity.js";
import { patternOutside } from "./regex-dfa.js";
import type { CodeRange } from "./gbnf.js";
import { isObject, pointer, unsupported } from "./schema-keywords.js";

const TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"];

/** The types a schema allows (its `type`, or all), with `integer` left out where `number` already holds it. */
function familiesOf(s: JsonSchema): string[] {
  const t = s.type;
  const types = typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : TYPES;
  return types.includes("number") ? types.filter((x) => x !== "integer") : types;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** A code point as a regex escape the pattern parser and ajv both read (BMP only; undefined beyond it). */
function escapeCp(cp: number): string | undefined {
  return cp > 0xffff ? undefined : `\\u${cp.toString(16).padStart(4, "0")}`;
}

interface Trie {
  end: boolean;
  next: Map<number, Trie>;
}

/** `[\s\S]` repeated from `lo` to `hi` times (hi undefined: unbounded). */
function anyChars(lo: number, hi: number | undefined): string {
  const ANY = "[\\s\\S]";
  if (hi === undefined) return lo === 0 ? `${ANY}*` : lo === 1 ? `${ANY}+` : `${ANY}{${lo},}`;
  return lo === hi ? (lo === 0 ? "" : lo === 1 ? ANY : `${ANY}{${lo}}`) : `${ANY}{${lo},${hi}}`;
}

/**
 * A pattern (anchored) for every string of `min`..`max` code points but these: at each trie node, the string
 * ends early (where no banned string ends there), turns off the trie, or goes on past a banned string's end.
 * The pattern spells the length bounds itself, so that it stands beside minLength/maxLength. Undefined beyond the
 * BMP.
 */
export function stringsExceptPattern(banned: readonly string[], min = 0, max?: number): string | undefined {
  const root: Trie = { end: false, next: new Map() };
  for (const s of banned) {
    let n = root;
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      if (!n.next.has(cp)) n.next.set(cp, { end: false, next: new Map() });
      n = n.next.get(cp)!;
    }
    n.end = true;
  }
  // Code points still allowed after `depth` of them: from `lo` to `hi`.
  const left = (depth: number): [number, number | undefined] => [Math.max(0, min - depth), max === undefined ? undefined : max - depth];
  const walk = (n: Trie, depth: number): string | undefined => {
    const [lo, hi] = left(depth);
    if (hi !== undefined && hi < 0) return undefined;
    const alts: string[] = n.end || lo > 0 ? [] : [""];
    if (hi === 0) return alts.length ? "" : undefined;
    if (n.next.size === 0) alts.push(anyChars(Math.max(1, lo), hi));
    else {
      const firsts: string[] = [];
      for (const cp of n.next.keys()) {
        const e = escapeCp(cp);
        if (e === undefined) return NO_BMP;
        firsts.push(e);
      }
      alts.push(`[^${firsts.join("")}]${anyChars(Math.max(0, lo - 1), hi === undefined ? undefined : hi - 1)}`);
      for (const [cp, child] of n.next) {
        const inner = walk(child, depth + 1);
        if (inner === NO_BMP) return NO_BMP;
        if (inner !== undefined) alts.push(`${escapeCp(cp)}${inner}`);
      }
    }
    return alts.length === 0 ? undefined : `(?:${alts.join("|")})`;
  };
  const body = walk(root, 0);
  if (body === NO_BMP) return undefined;
  // No string of those lengths is left: a pattern no string matches.
  return body === undefined ? "^[]$" : `^${body}$`;
}

/** walk's answer for a banned string beyond the BMP (the whole pattern is then refused). */
const NO_BMP = "(beyond the BMP)";

/** Most variants a `not` of enum/const may leave (intervals between banned numbers, one per type). */
const MAX_VALUE_VARIANTS = 16;

/**
 * `rest` and not one of `banned`, where `rest` is no enum: each type `rest` allows, less the banned values of
 * that type (numbers as the open intervals between them, strings by a pattern, booleans and null by value).
 * Objects and arrays among the banned values are refused.
 */
export function exceptValues(rest: JsonSchema, banned: readonly unknown[], at: string): JsonSchema[] | QtcError {
  const out: JsonSchema[] = [];
  for (const type of familiesOf(rest)) {
    const typed: JsonSchema = { ...rest, type };
    const mine = banned.filter((v) => (type === "number" || type === "integer" ? typeof v === "number" : jsonType(v) === type));
    if (mine.length === 0) {
      out.push(typed);
      continue;
    }
    if (type === "array" && (mine as unknown[][]).every((a) => a.length <= 1)) {
      out.push(...exceptShortArrays(typed, mine as unknown[][]));
      continue;
    }
    if (type === "object" || type === "array") return unsupported(at, `not of enum/const holding ${type === "object" ? "an object" : "an array of more than one item"} is not supported`);
    if (type === "null") continue;
    if (type === "boolean") {
      for (const b of [false, true]) if (!mine.includes(b)) out.push({ allOf: [typed, { const: b }] });
      continue;
    }
    if (type === "string") {
      const [min, max] = [typeof rest.minLength === "number" ? rest.minLength : 0, typeof rest.maxLength === "number" ? rest.maxLength : undefined];
      const pattern = stringsExceptPattern(mine as string[], Math.ceil(min), max === undefined ? undefined : Math.floor(max));
      if (pattern === undefined) return unsupported(at, "not of enum/const with characters beyond the BMP is not supported");
      out.push({ allOf: [typed, { pattern }] });
      continue;
    }
    const points = [...new Set(mine as number[])].sort((a, b) => a - b);
    out.push({ allOf: [typed, { exclusiveMaximum: points[0]! }] });
    for (let i = 1; i < points.length; i++) out.push({ allOf: [typed, { exclusiveMinimum: points[i - 1]!, exclusiveMaximum: points[i]! }] });
    out.push({ allOf: [typed, { exclusiveMinimum: points[points.length - 1]! }] });
  }
  return out.length > MAX_VALUE_VARIANTS ? unsupported(at, `not of enum/const expands into more than ${MAX_VALUE_VARIANTS} variants`) : out;
}

/**
 * Arrays (of `typed`) but these, each of at most one item: the empty array where it is not banned, one item
 * that is none of the banned single items, or two items and more.
 */
function exceptShortArrays(typed: JsonSchema, banned: readonly unknown[][]): JsonSchema[] {
  const singles = banned.filter((a) => a.length === 1).map((a) => a[0]);
  const out: JsonSchema[] = [];
  if (!banned.some((a) => a.length === 0)) out.push({ allOf: [typed, { maxItems: 0 }] });
  out.push({ allOf: [typed, { minItems: 1, maxItems: 1 }, ...(singles.length ? [{ items: { not: { enum: singles } } }] : [])] });
  out.push({ allOf: [typed, { minItems: 2 }] });
  return out;
}

/** A character class of these ranges (`[...]`, and `[^...]` for the rest), or undefined beyond the BMP. */
function classOf(ranges: readonly CodeRange[]): { inside: string; outside: string } | undefined {
  const parts: string[] = [];
  for (const [lo, hi] of ranges) {
    const [a, b] = [escapeCp(lo), escapeCp(hi)];
    if (a === undefined || b === undefined) return undefined;
    parts.push(lo === hi ? a : `${a}-${b}`);
  }
  return { inside: `[${parts.join("")}]`, outside: `[^${parts.join("")}]` };
}

/**
 * `rest` and not `pattern`, for a pattern that is one anchored class repeat `^C{m,n}$`: strings shorter than m,
 * longer than n, or holding a character outside C. Undefined for any other pattern.
 */
export function exceptPattern(rest: JsonSchema, pattern: unknown): JsonSchema[] | undefined {
  if (typeof pattern !== "string") return undefined;
  const parsed = parsePattern(pattern);
  if (!parsed.ok) return undefined;
  const found = foundClass(parsed.value);
  if (found) {
    // Searched for one character of C (`\$`, `[^a-z]+` unanchored): the strings with none, or none at all.
    if (!familiesOf(rest).includes("string") || found.min === 0) return [];
    // The characters left, as a class of their own or as "not C" (whichever stays in the BMP).
    const left = classOf(complement(found.ranges))?.inside ?? classOf(found.ranges)?.outside;
    return left ? [{ allOf: [{ ...rest, type: "string" }, { pattern: `^${left}*$` }] }] : undefined;
  }
  const rep = classRepeat(parsed.value);
  const cls = rep && classOf(rep.ranges);
  if (!rep || cls === undefined) return outsidePattern(rest, pattern);
  if (!familiesOf(rest).includes("string")) return [];
  const typed: JsonSchema = { ...rest, type: "string" };
  const out: JsonSchema[] = [];
  if (rep.min > 0) out.push({ allOf: [typed, { maxLength: rep.min - 1 }] });
  if (rep.max !== undefined) out.push({ allOf: [typed, { minLength: rep.max + 1 }] });
  // The first character outside the class, then anything: one way to match each string (an unanchored `[^C]`
  // would be `.*[^C].*`, matched many ways, which the engine pays for at every token).
  out.push({ allOf: [typed, { pattern: `^${cls.inside}*${cls.outside}[\\s\\S]*$` }] });
  return out;
}

/** `rest` and not `pattern`, for any other pattern: the strings of its complement (regex-dfa.ts), when built. */
function outsidePattern(rest: JsonSchema, pattern: string): JsonSchema[] | undefined {
  if (!familiesOf(rest).includes("string")) return [];
  const outside = patternOutside(pattern);
  if (outside === null) return [];
  return outside === undefined ? undefined : [{ allOf: [{ ...rest, type: "string" }, { pattern: outside }] }];
}

/** A pattern of one class (repeated or not) anchored at neither end: its class and least count; else undefined. */
function foundClass(p: ParsedPattern): { ranges: CodeRange[]; min: number } | undefined {
  if (p.branches.length !== 1) return undefined;
  const { re: raw, start, end } = p.branches[0]!;
  if (start || end) return undefined;
  const re = flattenRepeats(raw);
  const item = re.t === "seq" ? (re.items.length === 1 ? re.items[0]! : undefined) : re;
  if (item?.t === "set") return { ranges: item.ranges, min: 1 };
  if (item?.t === "rep" && item.item.t === "set" && (item.max === undefined || item.max >= item.min)) return { ranges: item.item.ranges, min: Math.min(item.min, 1) };
  return undefined;
}

/**
 * `rest` and not `items: S` (S one schema for every item): an array with an item that breaks S, written as
 * `contains: {not: S}`. Undefined for the list form of items.
 */
export function exceptItems(rest: JsonSchema, items: unknown): JsonSchema[] | undefined {
  if (Array.isArray(items)) return undefined;
  if (!familiesOf(rest).includes("array")) return [];
  if (items === true || (isObject(items) && Object.keys(items).length === 0)) return [];
  const typed: JsonSchema = { ...rest, type: "array" };
  if (items === false) return [{ allOf: [typed, { minItems: 1 }] }];
  return [{ allOf: [typed, { contains: { not: items } }] }];
}

/**
 * `rest` and not `contains: S` (minContains 1): an array no item of which matches S, written as `items: {not: S}`.
 * Undefined beside prefix items (an `items` part would skip them).
 */
export function exceptContains(rest: JsonSchema, contains: unknown): JsonSchema[] | undefined {
  if (Array.isArray(rest.prefixItems) || Array.isArray(rest.items)) return undefined;
  if (!familiesOf(rest).includes("array")) return [];
  const typed: JsonSchema = { ...rest, type: "array" };
  if (contains === false) return [typed];
  if (contains === true || (isObject(contains) && Object.keys(contains).length === 0)) return [{ allOf: [typed, { maxItems: 0 }] }];
  return [{ allOf: [typed, { items: { not: contains } }] }];
}

/**
 * `rest` and not `dependencies` (or dependentRequired / dependentSchemas): an object where some trigger member is
 * present and one of its dependencies is missing (the list form) or broken (the schema form).
 */
export function exceptDependencies(rest: JsonSchema, deps: unknown, at: string): JsonSchema[] | QtcError {
  if (!isObject(deps)) return unsupported(pointer(at, "dependencies"), "dependencies must be an object");
  if (!familiesOf(rest).includes("object")) return [];
  const required = Array.isArray(rest.required) ? rest.required : [];
  const props = isObject(rest.properties) ? rest.properties : {};
  const out: JsonSchema[] = [];
  for (const [trigger, dep] of Object.entries(deps)) {
    const present: JsonSchema = { ...rest, type: "object", required: [...required, trigger] };
    if (Array.isArray(dep)) {
      for (const name of dep) {
        if (typeof name !== "string") continue;
        // The trigger itself is present: a list naming it can only break on the others.
        if (name === trigger) continue;
        out.push({ ...present, properties: { ...props, [name]: false } });
      }
    } else if (dep === false) out.push(present);
    else if (dep !== true && !(isObject(dep) && Object.keys(dep).length === 0)) out.push({ allOf: [present, { not: dep }] });
  }
  return out;
}

/**
 * A word of qtc's own (an annotation to everyone else) that `not` of additionalProperties writes: the object holds
 * at least this many members its properties do not list (the lowering's minExtra).
 */
export const MIN_EXTRA_MEMBERS = "x-qtc-min-extra-members";

/** A word of the lowering's own: the numbers left are not integers (`not` of integer beside numbers). */
export const NOT_INTEGER = "x-qtc-not-integer";

/**
 * `rest` and not `{properties, additionalProperties: false}` (judged together: a member is extra for the negated
 * schema when it names none of its properties): a listed member present that breaks its schema (`listed`, the
 * caller's `not` of properties), or a member the negated schema does not list — one of rest's own listed members
 * it does not name, or an extra member of rest (at least one: MIN_EXTRA_MEMBERS). Only `false` is negated.
 */
export function exceptExtraMembers(rest: JsonSchema, named: readonly string[], extra: unknown, at: string): JsonSchema[] | QtcError {
  if (extra === true || (isObject(extra) && Object.keys(extra).length === 0)) return [];
  if (extra !== false) return unsupported(at, "not of additionalProperties other than false is not supported");
  if (!familiesOf(rest).includes("object")) return [];
  if ("patternProperties" in rest || "minProperties" in rest || "propertyNames" in rest || "enum" in rest || "const" in rest) {
    return unsupported(at, "not of additionalProperties beside patternProperties, propertyNames, minProperties or an enum is not supported");
  }
  const props = isObject(rest.properties) ? rest.properties : {};
  const required = Array.isArray(rest.required) ? rest.required.filter((n): n is string => typeof n === "string") : [];
  const own: unknown = rest.additionalProperties ?? true;
  const out: JsonSchema[] = [];
  for (const [name, sub] of Object.entries(props)) {
    if (named.includes(name) || sub === false) continue;
    out.push({ ...rest, type: "object", required: [...new Set([...required, name])] });
  }
  if (own !== false) {
    const listed: Record<string, unknown> = { ...props };
    for (const n of named) if (!(n in listed)) listed[n] = own;
    out.push({ ...rest, type: "object", properties: listed, [MIN_EXTRA_MEMBERS]: 1 });
  }
  return out;
}

/**
 * `rest` and not `propertyNames: P`: an object with a key P refuses. Held where P's refusals are few names (P is
 * `not` of enum/const: one of those keys present), where P is false (any key: not empty), or where P is an
 * enum/const of names (a key outside them, as not of additionalProperties false over those names). Undefined for
 * any other P.
 */
export function exceptNames(rest: JsonSchema, names: unknown, at: string): JsonSchema[] | QtcError | undefined {
  const strings = (s: unknown) => (isObject(s) && Array.isArray(s.enum) ? s.enum : isObject(s) && "const" in s ? [s.const] : undefined)?.filter((v): v is string => typeof v === "string");
  const only = (s: unknown, k: string) => isObject(s) && Object.keys(s).length === 1 && k in s;
  if (names === true || (isObject(names) && Object.keys(names).length === 0)) return [];
  if (!familiesOf(rest).includes("object")) return names === false || isObject(names) ? [] : undefined;
  const required = Array.isArray(rest.required) ? rest.required : [];
  if (names === false) return [{ ...rest, type: "object", minProperties: Math.max(1, typeof rest.minProperties === "number" ? rest.minProperties : 0) }];
  if (isObject(names) && only(names, "not")) {
    const banned = strings(names.not);
    if (banned && (only(names.not, "enum") || only(names.not, "const"))) return banned.map((n) => ({ ...rest, type: "object", required: [...new Set([...required, n])] }));
  }
  if ((only(names, "enum") || only(names, "const")) && strings(names)) return exceptExtraMembers(rest, strings(names)!, false, at);
  return undefined;
}
