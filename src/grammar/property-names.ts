// Owns: holding `propertyNames` in the grammar where it names the keys outright (`enum` or `const` of strings):
// the object is rewritten to list exactly those names, each with the schema its key would get, and nothing else.

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
