// Owns: holding `propertyNames` in the grammar by rewriting the object: where it names the keys outright (`enum` or
// `const` of strings, itself or through a `$ref`) the object lists exactly those names, each with the schema its key
// would get (its own, the patterns' it matches, or additionalProperties'), and nothing else; a `pattern` makes the extra members that pattern's members; `true`/`{type: "string"}` say nothing, `false`
// leaves only the empty object.

import type { JsonSchema } from "../tools/types.js";
import { patternRegExp } from "../tools/linear-regexp.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** propertyNames keywords a named-key set may carry beside its names (they say nothing more about a listed name). */
const BESIDE_NAMES = new Set(["enum", "const", "type", "title", "description", "$comment", "examples", "default"]);

/**
 * The object schema `s` with `propertyNames: {enum: [...]}` (or `const`) folded into its members: each allowed
 * name is listed with the schemas JSON Schema gives its key (its own member's and every matching pattern's, else
 * the `additionalProperties` schema, any value when absent), and no other key is admitted. Undefined when `s` has
 * no propertyNames this folds (the keyword is then left to the policy). `resolve` reads a `$ref` propertyNames.
 */
export function foldPropertyNames(s: JsonSchema, resolve: (v: unknown) => unknown = (v) => v): JsonSchema | undefined {
  if (!("propertyNames" in s)) return undefined;
  const { propertyNames: raw, ...rest } = s;
  const p = resolve(raw);
  // Every key is a string: `true`, `{}` or `{type: "string"}` say nothing.
  if (p === true || (isObject(p) && Object.keys(p).every((k) => k === "type" || ANNOTATIONS.has(k)) && (p.type === undefined || p.type === "string"))) return rest;
  const patterns = isObject(s.patternProperties) ? Object.keys(s.patternProperties) : [];
  // One pattern every key matches, with no additionalProperties to pass over: it is the extra members' schema.
  if (patterns.length === 1 && UNIVERSAL.has(patterns[0]!) && (s.additionalProperties === undefined || s.additionalProperties === true)) {
    const { patternProperties, ...plain } = s;
    const every = (patternProperties as Record<string, unknown>)[patterns[0]!];
    // A listed member matches the pattern too: it satisfies both schemas.
    const listed = isObject(s.properties) ? Object.fromEntries(Object.entries(s.properties).map(([n, own]) => [n, { allOf: [own, every] }])) : undefined;
    return foldPropertyNames({ ...plain, ...(listed ? { properties: listed } : {}), additionalProperties: every }, resolve);
  }
  const listed = isObject(s.properties) ? s.properties : {};
  const ap = s.additionalProperties;
  const names = namedKeys(p);
  if (names) return foldNames(rest, names, listed);
  if (patterns.length > 0) return undefined;
  if (p === false) return { ...rest, properties: Object.fromEntries(Object.keys(listed).map((n) => [n, false])), additionalProperties: false };
  const pattern = keyPattern(p);
  if (pattern) {
    // Keys matching a pattern: the extra members become that pattern's members; a listed name it refuses is never written.
    // A listed name the pattern matches would take the pattern member's schema too (not folded: left to the policy).
    if (ap !== false && Object.keys(listed).some((name) => pattern.test(name))) return undefined;
    const properties: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(listed)) properties[name] = pattern.test(name) ? sub : false;
    if (ap === false) return { ...rest, properties };
    return { ...rest, properties, patternProperties: { [pattern.source]: ap ?? {} }, additionalProperties: false };
  }
  return undefined;
}

/** `rest` (the object without propertyNames) with exactly `names` as its members; undefined where a pattern JavaScript cannot read sits beside them. */
function foldNames(rest: JsonSchema, names: readonly string[], listed: Record<string, unknown>): JsonSchema | undefined {
  const { patternProperties, ...plain } = rest;
  const patterns: [RegExp, unknown][] = [];
  for (const [source, sub] of Object.entries(isObject(patternProperties) ? patternProperties : {})) {
    const re = readable(source);
    if (!re) return undefined;
    patterns.push([re, sub]);
  }
  const ap = rest.additionalProperties;
  const properties: Record<string, unknown> = {};
  for (const name of names) {
    const parts = [...(Object.hasOwn(listed, name) ? [listed[name]] : []), ...patterns.filter(([re]) => re.test(name)).map(([, sub]) => sub)];
    properties[name] = parts.length === 0 ? (ap === undefined ? {} : ap) : parts.length === 1 ? parts[0] : { allOf: parts };
  }
  // A listed name the key set excludes can never be written (required, it makes the object unsatisfiable).
  for (const name of Object.keys(listed)) if (!names.includes(name)) properties[name] = false;
  return { ...plain, properties, additionalProperties: false };
}

function readable(source: string): RegExp | undefined {
  try {
    return patternRegExp(source);
  } catch {
    return undefined;
  }
}

/** Patterns every key matches (`^.*$` is not one: `.` does not match a line break). */
const UNIVERSAL = new Set([".*", "^.*", ".*$", "", "[\\s\\S]*", "^[\\s\\S]*$"]);

/** Annotations a propertyNames schema may carry (they constrain nothing). */
const ANNOTATIONS = new Set(["title", "description", "$comment", "examples", "default"]);

/** The pattern a propertyNames schema asks of every key, when that is all it asks (a pattern JavaScript reads). */
function keyPattern(p: unknown): RegExp | undefined {
  if (!isObject(p) || typeof p.pattern !== "string" || (p.type !== undefined && p.type !== "string")) return undefined;
  if (!Object.keys(p).every((k) => k === "pattern" || k === "type" || ANNOTATIONS.has(k))) return undefined;
  return readable(p.pattern);
}

/** The key names a propertyNames schema allows, when it allows exactly a finite set of strings. */
function namedKeys(p: unknown): string[] | undefined {
  if (!isObject(p) || !Object.keys(p).every((k) => BESIDE_NAMES.has(k))) return undefined;
  if (p.type !== undefined && p.type !== "string") return undefined;
  let values: unknown[] | undefined = Array.isArray(p.enum) ? p.enum : undefined;
  if ("const" in p) values = values ? values.filter((v) => v === p.const) : [p.const];
  if (!values) return undefined;
  return [...new Set(values.filter((v): v is string => typeof v === "string"))];
}
