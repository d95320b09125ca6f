// Owns: spelling a MaskBench instance the way qwen's grammar writes it: canonical JSON with each object's keys in
// the schema's order (listed properties first, in the order lowering merges them; then required names no property
// lists; other keys after, as given).

import { canonicalJson, jsonString, JSON_SPELLING } from "../../dist/grammar/canonical-json.js";
import { typeAccepts } from "../../dist/grammar/schema-nodes.js";
import { linearRegExp } from "../../dist/tools/linear-regexp.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function follow(root: unknown, schema: unknown): unknown {
  let s = schema;
  for (let i = 0; i < 32 && isObj(s) && typeof s.$ref === "string" && s.$ref.startsWith("#"); i++) {
    let node: unknown = root;
    for (const raw of s.$ref.slice(2).split("/").filter((t) => t !== "")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      node = isObj(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    }
    const { $ref: _r, ...rest } = s;
    s = Object.keys(rest).length === 0 ? node : { ...(isObj(node) ? node : {}), ...rest, properties: { ...(isObj(node) && isObj(node.properties) ? node.properties : {}), ...(isObj(rest.properties) ? rest.properties : {}) } };
  }
  return s;
}

/** Whether a schema's `const`, `enum`, `type` or a string's `pattern` alone refuses the value (nothing deeper is judged). */
function refuses(schema: unknown, v: unknown): boolean {
  if (!isObj(schema)) return schema === false;
  const same = (x: unknown) => canonicalJson(x) === canonicalJson(v);
  if ("const" in schema && !same(schema.const)) return true;
  if (Array.isArray(schema.enum) && !schema.enum.some(same)) return true;
  if (typeof v === "string" && typeof schema.pattern === "string" && compiledPattern(schema.pattern)?.test(v) === false) return true;
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  return types !== undefined && !types.some((t) => typeof t === "string" && typeAccepts(t, v));
}

/** The names a propertyNames schema allows, when it lists them (`enum` or `const` of strings). */
function namedKeys(p: unknown): string[] | undefined {
  if (!isObj(p)) return undefined;
  const values = Array.isArray(p.enum) ? p.enum : "const" in p ? [p.const] : undefined;
  return values?.filter((v): v is string => typeof v === "string");
}

/** Property names in lowering's order and each one's schema (allOf parts and `$ref` targets merged). */
function members(root: unknown, schema: unknown, value: Obj, depth: number): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const s = follow(root, schema);
  if (!isObj(s) || depth > 16) return out;
  const add = (name: string, sub: unknown) => {
    const list = out.get(name);
    if (list) list.push(sub);
    else out.set(name, [sub]);
  };
  // propertyNames naming the keys: the compiler lists exactly those names, in their order (property-names.ts).
  const named = namedKeys(follow(root, s.propertyNames));
  if (named) for (const k of named) add(k, isObj(s.properties) && k in s.properties ? s.properties[k] : unlistedSchema(s, k));
  else if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) add(k, v);
  for (const part of Array.isArray(s.allOf) ? s.allOf : []) for (const [k, v] of members(root, part, value, depth + 1)) for (const x of v) add(k, x);
  const options = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : [];
  let best: Map<string, unknown[]> | undefined;
  let bestScore = -1;
  for (const o of options) {
    const m = members(root, o, value, depth + 1);
    // An option whose const/enum/type refuses one of the value's members (a discriminator) does not describe it.
    const refused = Object.keys(value).some((k) => m.get(k)?.some((sub) => refuses(follow(root, sub), value[k])));
    const score = refused ? -1 : Object.keys(value).filter((k) => m.has(k)).length;
    if (score > bestScore) [best, bestScore] = [m, score];
  }
  if (best) for (const [k, v] of best) for (const x of v) add(k, x);
  // if/then/else: the branch the value takes adds its members after the base's (lowering writes each branch so).
  const branch = conditionalBranch(root, s, value);
  if (branch !== undefined) for (const [k, v] of members(root, branch, value, depth + 1)) for (const x of v) add(k, x);
  // Required names no property lists come after the listed ones, in `required`'s order (as lower-object.ts writes them).
  if (depth === 0) for (const k of requiredNames(root, s, 0)) if (!out.has(k)) add(k, unlistedSchema(s, k));
  return out;
}

/**
 * The `then` or `else` of a schema with `if`, as the value takes it: `if` fails where it requires a member the
 * value lacks or a member's const, enum or type refuses the value's (the conditions MaskBench's schemas write);
 * undefined without `if`.
 */
function conditionalBranch(root: unknown, s: Obj, value: Obj): unknown {
  if (!("if" in s)) return undefined;
  const cond = follow(root, s.if);
  let holds = cond !== false;
  if (isObj(cond)) {
    const required = Array.isArray(cond.required) ? cond.required : [];
    const props = isObj(cond.properties) ? cond.properties : {};
    holds = required.every((k) => typeof k === "string" && k in value) && Object.entries(props).every(([k, sub]) => !(k in value) || !refuses(follow(root, sub), value[k]));
  }
  return holds ? s.then : s.else;
}

/** The names `required` lists in `s` and its allOf parts (through `$ref`s), in order. */
function requiredNames(root: unknown, schema: unknown, depth: number): string[] {
  const s = follow(root, schema);
  if (!isObj(s) || depth > 16) return [];
  const own = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
  return [...own, ...(Array.isArray(s.allOf) ? s.allOf : []).flatMap((part) => requiredNames(root, part, depth + 1))];
}

/**
 * The schema that describes arrays: `schema` itself, or the first allOf part or anyOf/oneOf option (through
 * `$ref`s) that has `items`/`prefixItems` — an array reached through a union is ordered by the option it fits.
 */
function arrayBranch(root: unknown, schema: unknown, depth = 0): Obj | undefined {
  const s = follow(root, schema);
  if (!isObj(s) || depth > 16) return undefined;
  if ("items" in s || "prefixItems" in s) return s;
  const parts = [s.allOf, s.anyOf, s.oneOf].flatMap((list) => (Array.isArray(list) ? list : []));
  for (const part of parts) {
    const found = arrayBranch(root, part, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function itemSchema(root: unknown, schema: unknown, i: number): unknown {
  const s = arrayBranch(root, schema);
  if (!s) return undefined;
  if (Array.isArray(s.prefixItems)) return i < s.prefixItems.length ? s.prefixItems[i] : s.items;
  if (Array.isArray(s.items)) return i < s.items.length ? s.items[i] : s.additionalItems;
  return s.items;
}

const compiledPatterns = new Map<string, { test(s: string): boolean } | null>();
/** A schema's `pattern` compiled once (a key's in patternProperties, or a string value's); null where it cannot run. */
function compiledPattern(pattern: string): { test(s: string): boolean } | null {
  if (!compiledPatterns.has(pattern)) {
    try {
      compiledPatterns.set(pattern, linearRegExp(pattern, "u"));
    } catch {
      // A pattern the linear engine cannot run orders nothing (the compiler refuses it too).
      compiledPatterns.set(pattern, null);
    }
  }
  return compiledPatterns.get(pattern)!;
}

/**
 * The schema of a key no listed property names: every patternProperties schema it matches, merged in the order
 * they are listed (as the compiler merges a key's value when the key may match several), else
 * additionalProperties.
 */
function unlistedSchema(s: unknown, key: string): unknown {
  if (!isObj(s)) return undefined;
  const matching = isObj(s.patternProperties) ? Object.entries(s.patternProperties).filter(([pattern]) => compiledPattern(pattern)?.test(key)).map(([, sub]) => sub) : [];
  if (matching.length > 1) return { allOf: matching };
  return matching.length === 1 ? matching[0] : s.additionalProperties;
}

/** Canonical JSON of `value` with object keys in `schema`'s order (`root` resolves `$ref`s). */
export function schemaOrdered(value: unknown, schema: unknown, root: unknown = schema, depth = 0): string {
  const { itemSep, keySep } = JSON_SPELLING;
  if (depth > 200) return canonicalJson(value);
  if (Array.isArray(value)) return "[" + value.map((v, i) => schemaOrdered(v, itemSchema(root, schema, i), root, depth + 1)).join(itemSep) + "]";
  if (!isObj(value)) return canonicalJson(value);
  const m = members(root, schema, value, 0);
  const s = follow(root, schema);
  const keys = [...[...m.keys()].filter((k) => k in value), ...Object.keys(value).filter((k) => !m.has(k))];
  return "{" + keys.map((k) => jsonString(k) + keySep + schemaOrdered(value[k], m.get(k)?.[0] ?? unlistedSchema(s, k), root, depth + 1)).join(itemSep) + "}";
}
