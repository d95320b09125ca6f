// Owns: `not`, where it can be held exactly, as a rewrite of the schema it sits in: `not` of types (the other
// types), of `required` (a member absent; `not` of required also rules out every non-object), of `properties`
// (a member present that breaks its schema), of enum/const beside an enum (the values left), of several of
// these (any one broken), of `anyOf` (each option negated in turn), and `not: {}` (nothing); and `if`/`then`/
// `else` as (if and then) | (not if, and else); `not` of `not` (the schema itself), of `allOf` (any part broken),
// of a count or bound (the other side of it: `minItems: 2` → at most 1 item), and any `not` beside an enum or
// const (the values the negated schema refuses, judged by the validator); `not` of a `$ref` (its target), and of
// enum/const, class-repeat patterns, items and dependencies beside any schema (see not-values.ts). Any other
// `not` is refused by pointer (under `validate`, left to the validator).

import type { QtcError } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { fewValues, judgeOf, mentionsRef } from "./value-judge.js";
import { exceptContains, exceptDependencies, exceptExtraMembers, exceptItems, exceptNames, exceptPattern, exceptValues, NOT_INTEGER } from "./not-values.js";
import { deepEqual, isAnnotation, isObject, pointer, unsupported } from "./schema-keywords.js";

const TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"];

/** The keywords of a schema other than annotations. */
function words(s: Record<string, unknown>): string[] {
  return Object.keys(s).filter((k) => !isAnnotation(k));
}

/** The types a schema allows (its `type`, or all). */
function typesOf(s: JsonSchema): string[] {
  const t = s.type;
  return typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : TYPES;
}

/**
 * `rest` (the schema without its `not`) and not `negated`, as variants whose union is exact; a QtcError when the
 * grammar cannot hold this `not`.
 */
export function applyNot(rest: JsonSchema, negated: unknown, path: string, resolve?: RefResolver, refs = 0): JsonSchema[] | QtcError {
  const at = pointer(path, "not");
  if (negated === false) return [rest];
  if (negated === true || (isObject(negated) && words(negated).length === 0)) return [];
  if (!isObject(negated)) return unsupported(at, "not must be a schema");
  if (typeof negated.$ref === "string") {
    // The target (merged with the ref's siblings) negated instead; a chain of refs stops at MAX_NOT_REFS.
    const target = refs < MAX_NOT_REFS ? resolve?.(negated) : undefined;
    if (target === undefined) return unsupported(at, "not of $ref is not supported here (no resolvable target, or a chain of more than 8 refs)");
    return applyNot(rest, target, path, resolve, refs + 1);
  }
  const again = (r: JsonSchema, n: unknown) => applyNot(r, n, path, resolve, refs);
  const keys = words(negated);
  const only = (k: string) => keys.length === 1 && keys[0] === k;
  const few = Array.isArray(rest.enum) || "const" in rest ? undefined : fewValues(rest);
  if ((Array.isArray(rest.enum) || "const" in rest || few) && !mentionsRef(negated)) {
    // Finitely many values: keep those the negated schema refuses (exact whatever it says).
    const judge = judgeOf(negated);
    if (judge) {
      const values: unknown[] = few ?? (Array.isArray(rest.enum) ? rest.enum : [rest.const]);
      const { const: _c, ...base } = rest;
      return [{ ...base, enum: values.filter((v) => !judge(v)) }];
    }
  }
  if (only("type")) {
    const out = typesOf({ type: negated.type } as JsonSchema);
    if (out.includes("integer") && !out.includes("number") && typesOf(rest).some((t) => t === "number")) {
      // The numbers with a fraction (NOT_INTEGER), beside the other types left.
      const others = typesOf(rest).filter((t) => !out.includes(t) && t !== "number");
      return [...(others.length > 0 ? [{ ...rest, type: others }] : []), { ...rest, type: "number", [NOT_INTEGER]: true }];
    }
    const left = typesOf(rest).filter((t) => !out.includes(t) && !(t === "integer" && out.includes("number")));
    return left.length === 0 ? [] : [{ ...rest, type: left }];
  }
  if (only("required") && Array.isArray(negated.required)) {
    // not(A and B ...) = A absent | B absent | ...; `required` holds for every non-object, so those are ruled out.
    const props = isObject(rest.properties) ? rest.properties : {};
    const types = typesOf(rest).filter((t) => t === "object");
    if (types.length === 0) return [];
    // A name rest requires itself is never absent: no variant (a contradiction the grammar would carry for nothing).
    const own = new Set(Array.isArray(rest.required) ? rest.required : []);
    return (negated.required as unknown[]).filter((n): n is string => typeof n === "string" && !own.has(n)).map((n) => ({ ...rest, type: "object", properties: { ...props, [n]: false } }));
  }
  if (only("not")) return [{ allOf: [rest, negated.not as JsonSchema] }];
  // One option: the union is that option.
  if ((only("oneOf") || only("anyOf")) && Array.isArray(negated[keys[0]!]) && (negated[keys[0]!] as unknown[]).length === 1) return again(rest, (negated[keys[0]!] as unknown[])[0]);
  if (only("allOf") && Array.isArray(negated.allOf)) {
    // not(A and B ...) = not A | not B | ...
    const out: JsonSchema[] = [];
    for (const part of negated.allOf) {
      const r = again(rest, part);
      if (!Array.isArray(r)) return r;
      out.push(...r);
    }
    return out.length > MAX_VARIANTS ? unsupported(at, `not of allOf expands into more than ${MAX_VARIANTS} variants`) : out;
  }
  if (keys.length === 1 && keys[0]! in FLIPS && typeof negated[keys[0]!] === "number") {
    const [type, word, value] = FLIPS[keys[0]!]!(negated[keys[0]!] as number);
    // A count below 0 can never hold: `not` of `minItems: 0` leaves nothing.
    if (value !== undefined && value < 0) return [];
    if (!typesOf(rest).some((t) => t === type || (type === "number" && t === "integer"))) return [];
    return [{ allOf: [rest, { type, [word]: value }] }];
  }
  if (only("enum") || only("const")) {
    const banned: unknown[] = only("enum") ? (Array.isArray(negated.enum) ? negated.enum : []) : [negated.const];
    if (!(Array.isArray(rest.enum) || "const" in rest)) return exceptValues(rest, banned, at);
    const values: unknown[] = Array.isArray(rest.enum) ? rest.enum : [rest.const];
    const { const: _c, ...base } = rest;
    return [{ ...base, enum: values.filter((v) => !banned.some((b) => deepEqual(v, b))) }];
  }
  if (only("pattern")) {
    const r = exceptPattern(rest, negated.pattern);
    if (r) return r;
  }
  if (only("contains") || (keys.length === 2 && "contains" in negated && negated.minContains === 1)) {
    const r = exceptContains(rest, negated.contains);
    if (r) return r;
  }
  if (only("items")) {
    const r = exceptItems(rest, negated.items);
    if (r) return r;
  }
  if (only("dependencies") || only("dependentRequired") || only("dependentSchemas")) return exceptDependencies(rest, negated[keys[0]!], path);
  if (only("properties") && isObject(negated.properties)) {
    // not(every listed member, when present, fits) = some member present that does not; non-objects ruled out.
    if (!typesOf(rest).includes("object")) return [];
    const props = isObject(rest.properties) ? rest.properties : {};
    const required = Array.isArray(rest.required) ? rest.required : [];
    // A member whose schema here is the negated one (or that says nothing) cannot break it: no variant.
    // A member rest closes out (additionalProperties false, no pattern keys) is never present: it breaks nothing.
    const closedOut = (n: string) => rest.additionalProperties === false && !("patternProperties" in rest) && !(n in props);
    const breakable = Object.entries(negated.properties).filter(([n, sub]) => sub !== true && !(isObject(sub) && words(sub).length === 0) && !(n in props && deepEqual(props[n], sub)) && !closedOut(n) && props[n] !== false);
    return breakable.map(([n, sub]) => ({
      ...rest,
      type: "object",
      required: [...required, n],
      properties: { ...props, [n]: n in props ? { allOf: [props[n], { not: sub }] } : { not: sub } },
    }));
  }
  if (only("propertyNames")) {
    const names = exceptNames(rest, negated.propertyNames, at);
    if (names) return names;
  }
  if (only("oneOf") && Array.isArray(negated.oneOf)) {
    // not(exactly one) = none of them | two of them at once.
    const options = negated.oneOf as unknown[];
    const none = again(rest, { anyOf: options });
    if (!Array.isArray(none)) return none;
    const out: JsonSchema[] = [...none];
    for (let i = 0; i < options.length; i++) for (let j = i + 1; j < options.length; j++) out.push({ allOf: [rest, options[i] as JsonSchema, options[j] as JsonSchema] });
    return out.length > MAX_VARIANTS ? unsupported(at, `not of oneOf expands into more than ${MAX_VARIANTS} variants`) : out;
  }
  // additionalProperties is judged against properties: the two are one unit (patternProperties beside them is not).
  const members = keys.includes("additionalProperties") && !keys.includes("patternProperties");
  if (members && keys.every((k) => k === "additionalProperties" || k === "properties")) {
    const named = isObject(negated.properties) ? Object.keys(negated.properties) : [];
    const listed = isObject(negated.properties) ? again(rest, { properties: negated.properties }) : [];
    if (!Array.isArray(listed)) return listed;
    const extra = exceptExtraMembers(rest, named, negated.additionalProperties, at);
    return Array.isArray(extra) ? [...listed, ...extra] : extra;
  }
  const units = members ? [["properties", "additionalProperties"].filter((k) => k in negated), ...keys.filter((k) => k !== "properties" && k !== "additionalProperties").map((k) => [k])] : keys.map((k) => [k]);
  if (units.length > 1 && units.every((u) => u.length > 1 || constrainsAlone(u[0]!, keys, members))) {
    // not(a and b) = not a | not b: each keyword (or unit of keywords) negated on its own.
    const out: JsonSchema[] = [];
    for (const u of units) {
      const r = again(rest, Object.fromEntries(u.map((k) => [k, negated[k]])));
      if (!Array.isArray(r)) return r;
      out.push(...r);
    }
    return out.length > MAX_VARIANTS ? unsupported(at, `not expands into more than ${MAX_VARIANTS} variants`) : out;
  }
  if (only("anyOf") && Array.isArray(negated.anyOf)) {
    let variants: JsonSchema[] = [rest];
    for (const option of negated.anyOf) {
      const next: JsonSchema[] = [];
      for (const v of variants) {
        const r = again(v, option);
        if (!Array.isArray(r)) return r;
        next.push(...r);
      }
      // The same variant reached twice (two options negated alike) is one variant.
      variants = [...new Map(next.map((v) => [JSON.stringify(v), v])).values()];
      if (variants.length > MAX_VARIANTS) return unsupported(at, `not of anyOf expands into more than ${MAX_VARIANTS} variants`);
    }
    return variants;
  }
  return unsupported(at, `not of ${keys.join(", ")} is not supported (supported: not of type, required, enum/const beside an enum, anyOf of those, {})`);
}

/**
 * A count or bound and what its negation is: only values of `type` are constrained by it, and those that break
 * it satisfy `{type, [word]: value}`.
 */
const FLIPS: Record<string, (n: number) => [string, string, number]> = {
  minItems: (n) => ["array", "maxItems", Math.ceil(n) - 1],
  maxItems: (n) => ["array", "minItems", Math.floor(n) + 1],
  minLength: (n) => ["string", "maxLength", Math.ceil(n) - 1],
  maxLength: (n) => ["string", "minLength", Math.floor(n) + 1],
  minProperties: (n) => ["object", "maxProperties", Math.ceil(n) - 1],
  maxProperties: (n) => ["object", "minProperties", Math.floor(n) + 1],
  minimum: (n) => ["number", "exclusiveMaximum", n],
  maximum: (n) => ["number", "exclusiveMinimum", n],
  exclusiveMinimum: (n) => ["number", "maximum", n],
  exclusiveMaximum: (n) => ["number", "minimum", n],
};

/**
 * Whether keyword `k` of a negated schema with `keys` constrains on its own: the splittable ones, additionalProperties
 * where it is one unit with properties (`members`), and contains without minContains/maxContains (which count it).
 */
function constrainsAlone(k: string, keys: readonly string[], members: boolean): boolean {
  return SPLITTABLE.has(k) || (members && k === "additionalProperties") || (k === "contains" && !keys.includes("minContains") && !keys.includes("maxContains"));
}

/** Keywords that each constrain on their own, so that not(a and b) is not a | not b. */
const SPLITTABLE = new Set(["type", "required", "properties", "enum", "const", "not", "allOf", "anyOf", "oneOf", "pattern", "items", "propertyNames", "dependencies", "dependentRequired", "dependentSchemas", ...Object.keys(FLIPS)]);

/** A `$ref` (with its siblings) as the schema it stands for; undefined when it cannot be resolved. */
export type RefResolver = (s: Record<string, unknown>) => unknown;

/** Most refs one `not` follows in a row (a ref to a ref …). */
const MAX_NOT_REFS = 8;
/** Most variants (alternatives of the negation) one `not` expands into. */
const MAX_VARIANTS = 256;

/** `if`/`then`/`else` as the union (rest, if, then) | (rest, not if, else); undefined when `if` is absent. */
export function ifThenElse(s: JsonSchema): JsonSchema[] | undefined {
  if (!("if" in s)) return undefined;
  const { if: cond, then: yes, else: no, ...rest } = s;
  return [{ allOf: [rest, cond as JsonSchema, (yes ?? true) as JsonSchema] }, { allOf: [{ ...rest, not: cond }, (no ?? true) as JsonSchema] }];
}
