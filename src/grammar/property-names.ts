// Owns: holding `propertyNames` in the grammar where it names the keys outright (`enum` or `const` of strings):
// the object is rewritten to list exactly those names, each with the schema its key would get, and nothing else;
// where it says nothing of a key (`{type: "string"}`, `{}`), dropped; where it is one pattern and no other pattern
// keys sit beside it (or only ones matching every key), the extra members become that pattern's members.

import type { JsonSchema } from "../tools/types.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** propertyNames keywords a named-key set may carry beside its names (they say nothing more about a listed name). */
const BESIDE_NAMES = new Set(["enum", "const", "type", "title", "description", "$comment", "examples", "default"]);

/**
 * The object schema `s` with `propertyNames: {enum: [...]}` (or `const`) folded into its members: each allowed
 * name is listed with its own schema, or the `additionalProperties` schema (any value when absent), and no other
 * key is admitted. Undefined when `s` has no such propertyNames, or when patternProperties sit beside it (not
 * folded here: the keyword is then left to the policy).
 */
export function foldPropertyNames(s: JsonSchema): JsonSchema | undefined {
  if (saysNothing(s.propertyNames)) {
    const { propertyNames: _names, ...rest } = s;
    return rest;
  }
  const byPattern = foldPattern(s);
  if (byPattern) return byPattern;
  const names = namedKeys(s.propertyNames);
  if (!names || (isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0)) return undefined;
  const listed = isObject(s.properties) ? s.properties : {};
  const ap = s.additionalProperties;
  const properties: Record<string, unknown> = {};
  for (const name of names) properties[name] = Object.hasOwn(listed, name) ? listed[name] : ap === undefined ? {} : ap;
  // A listed name the key set excludes can never be written (required, it makes the object unsatisfiable).
  for (const name of Object.keys(listed)) if (!names.includes(name)) properties[name] = false;
  const { propertyNames: _names, ...rest } = s;
  return { ...rest, properties, additionalProperties: false };
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

/** A propertyNames schema every key satisfies (keys are strings): true, `{}`, `{type: "string"}`, annotations. */
function saysNothing(p: unknown): boolean {
  if (p === true) return true;
  return isObject(p) && Object.keys(p).every((k) => BESIDE_NAMES.has(k) && k !== "enum" && k !== "const") && (p.type === undefined || p.type === "string");
}

/** Patterns that match every key. */
const UNIVERSAL = new Set(["", ".*", "^.*$", "^.*", ".*$", "[\\s\\S]*", "^[\\s\\S]*$"]);

/**
 * `propertyNames: {pattern: P}` beside no pattern keys (or only universal ones): every key matches P, so the
 * extra members are P's members (with the schema extra members had) and a listed name P refuses can never be
 * written. Undefined for any other propertyNames.
 */
function foldPattern(s: JsonSchema): JsonSchema | undefined {
  const p = s.propertyNames;
  if (!isObject(p) || typeof p.pattern !== "string" || !Object.keys(p).every((k) => k === "pattern" || (BESIDE_NAMES.has(k) && k !== "enum" && k !== "const"))) return undefined;
  if (p.type !== undefined && p.type !== "string") return undefined;
  const patterns = isObject(s.patternProperties) ? s.patternProperties : {};
  if (!Object.keys(patterns).every((q) => UNIVERSAL.has(q))) return undefined;
  let matches: RegExp;
  try {
    matches = new RegExp(p.pattern, "u");
  } catch {
    return undefined;
  }
  const universal = Object.values(patterns);
  // A key matching every pattern gets every universal pattern's schema; additionalProperties then never applies.
  const value = universal.length === 0 ? (s.additionalProperties ?? {}) : universal.length === 1 ? universal[0] : { allOf: universal };
  const listed = isObject(s.properties) ? s.properties : {};
  // Without a universal pattern a listed name would now get the extra members' schema as well: only when it says nothing.
  const open = value === true || (isObject(value) && Object.keys(value).length === 0);
  if (universal.length === 0 && !open && Object.keys(listed).some((name) => matches.test(name))) return undefined;
  const properties: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(listed)) properties[name] = matches.test(name) ? sub : false;
  const { propertyNames: _names, patternProperties: _pp, ...rest } = s;
  return { ...rest, properties, patternProperties: { [p.pattern]: value }, additionalProperties: false };
}
