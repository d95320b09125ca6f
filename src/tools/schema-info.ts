// Owns: reading what a tool's parameters schema lists (properties, required, extra-argument policy) and which
// JSON types each argument may take, so XML values can be typed and unknown arguments named.

import type { JsonSchema } from "./types.js";
import { patternRegExp } from "./linear-regexp.js";

/** The JSON types a value may take; "any" when the schema does not narrow it. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "object" | "array";
export type TypeSet = ReadonlySet<JsonType> | "any";

/** What the top level of a tool's parameters schema says about its arguments. */
export interface ParameterInfo {
  /** Every listed argument and its schema (from `properties`, top-level `allOf`/`anyOf`/`oneOf` and `$ref`). */
  properties: ReadonlyMap<string, JsonSchema>;
  /** Required arguments, in schema order. */
  required: readonly string[];
  /** Extra arguments: allowed (`additionalProperties: true` or a schema), or not (absent or false). */
  allowsExtra: boolean;
  /** Schema extra arguments must satisfy when `additionalProperties` is a schema; undefined otherwise. */
  extraSchema?: JsonSchema;
  /** `patternProperties` patterns: an argument matching one counts as listed. */
  patterns: readonly RegExp[];
}

const MAX_REF_DEPTH = 16;

/** Read a parameters schema. Never throws on odd schemas: what it cannot read, it treats as not listed. */
export function readParameters(root: JsonSchema): ParameterInfo {
  const properties = new Map<string, JsonSchema>();
  const required: string[] = [];
  const patterns: RegExp[] = [];
  let allowsExtra = false;
  let extraSchema: JsonSchema | undefined;
  const visit = (schema: JsonSchema, depth: number, top: boolean): void => {
    if (depth > MAX_REF_DEPTH) return;
    const resolved = resolveRef(root, schema);
    if (!resolved) return;
    if (resolved !== schema) return visit(resolved, depth + 1, top);
    if (isObject(schema.properties)) {
      for (const [key, value] of Object.entries(schema.properties)) {
        if (!properties.has(key)) properties.set(key, isObject(value) ? value : {});
      }
    }
    if (Array.isArray(schema.required)) {
      for (const r of schema.required) if (typeof r === "string" && !required.includes(r)) required.push(r);
    }
    if (isObject(schema.patternProperties)) {
      for (const p of Object.keys(schema.patternProperties)) {
        try {
          patterns.push(patternRegExp(p));
        } catch {
          /* ajv refuses such a schema before it gets here */
        }
      }
    }
    if (top) {
      const ap = schema.additionalProperties;
      if (ap === true || (isObject(ap) && Object.keys(ap).length === 0)) allowsExtra = true;
      else if (isObject(ap)) {
        allowsExtra = true;
        extraSchema = ap;
      }
    }
    if (Array.isArray(schema.allOf)) for (const s of schema.allOf) if (isObject(s)) visit(s, depth + 1, false);
    // anyOf/oneOf members list alternatives: their properties count as listed, their `required` does not.
    for (const key of ["anyOf", "oneOf"] as const) {
      const list = schema[key];
      if (Array.isArray(list)) for (const s of list) if (isObject(s)) visitAlternative(s, depth + 1);
    }
  };
  const visitAlternative = (schema: JsonSchema, depth: number): void => {
    if (depth > MAX_REF_DEPTH) return;
    const resolved = resolveRef(root, schema);
    if (!resolved) return;
    if (isObject(resolved.properties)) {
      for (const [key, value] of Object.entries(resolved.properties)) {
        if (!properties.has(key)) properties.set(key, isObject(value) ? value : {});
      }
    }
  };
  visit(root, 0, true);
  return { properties, required, allowsExtra, extraSchema, patterns };
}

/** The JSON types a value valid against `schema` may have (resolving local `$ref`s against `root`). */
export function typesOf(root: JsonSchema, schema: JsonSchema | undefined, depth = 0): TypeSet {
  if (!schema || depth > MAX_REF_DEPTH) return "any";
  const resolved = resolveRef(root, schema);
  if (!resolved) return "any";
  if (resolved !== schema) return typesOf(root, resolved, depth + 1);
  let set: Set<JsonType> | "any" = "any";
  const type = schema.type;
  if (typeof type === "string") set = new Set([type as JsonType]);
  else if (Array.isArray(type)) set = new Set(type.filter((t): t is JsonType => typeof t === "string"));
  else if ("const" in schema) set = new Set([jsonTypeOf(schema.const)]);
  else if (Array.isArray(schema.enum)) set = new Set(schema.enum.map(jsonTypeOf));
  else {
    const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (alternatives) {
      const union = new Set<JsonType>();
      for (const alt of alternatives) {
        const t = isObject(alt) ? typesOf(root, alt, depth + 1) : "any";
        if (t === "any") return "any";
        for (const x of t) union.add(x);
      }
      set = union;
    } else if (Array.isArray(schema.allOf)) {
      for (const part of schema.allOf) {
        const t = isObject(part) ? typesOf(root, part, depth + 1) : "any";
        if (t !== "any") return t;
      }
    }
  }
  if (set !== "any" && schema.nullable === true) set.add("null");
  if (set !== "any" && set.has("integer")) set.add("number");
  return set;
}

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string" || typeof value === "boolean" || typeof value === "object") return typeof value as JsonType;
  return "string";
}

/** Follow a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer into root); undefined if it dangles. */
function resolveRef(root: JsonSchema, schema: JsonSchema): JsonSchema | undefined {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return isObject(node) ? node : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
