// Owns: the JSON Schema vocabulary the grammar compiler knows (honoured, constraining but not honoured, ignored),
// the scan that finds the keywords a grammar cannot hold and the ignored ones (by JSON pointer), local `$ref`
// resolution, and the merge behind `allOf`.

import { err, ok, type QtcError, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { foldPropertyNames } from "./property-names.js";
import { holdsContains } from "./contains-held.js";
import { narrowerPattern } from "./regex-overlap.js";
import { patternOfBoth } from "./regex-dfa.js";

/**
 * Keywords that never change which values are valid (annotations, and draft-04 `id`/`definitions`, 2019/2020
 * `$defs`, `$anchor`, `$comment` understood as such). Listed for the docs: every keyword that is neither honoured
 * nor in CONSTRAINING_UNSUPPORTED is ignored too (vendor extensions, `x-…`, unknown words), as JSON Schema says,
 * and reported in the compile's `constraint.ignored`.
 */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  "title",
  "description",
  "examples",
  "example",
  "default",
  "$schema",
  "$comment",
  "$id",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
  "markdownDescription",
  "$defs",
  "definitions",
  "id",
  "$anchor",
  "$dynamicAnchor",
  "$vocabulary",
]);

/**
 * Keywords that constrain values and that the grammar does not hold. Under the `strict` policy each is an
 * `unsupported_keyword` error at its JSON pointer; under `validate` the grammar holds a superset without it and
 * the validator judges the call (reported in `constraint.relaxed`).
 */
export const CONSTRAINING_UNSUPPORTED: ReadonlySet<string> = new Set([
  "propertyNames",
  "contains",
  "minContains",
  "maxContains",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$dynamicRef",
  "$recursiveRef",
]);

/** Keywords the compiler honours (some only for certain values; lowering refuses the others by pointer). */
export const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "dependencies",
  "dependentRequired",
  "dependentSchemas",
  "not",
  "if",
  "then",
  "else",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "anyOf",
  "oneOf",
  "allOf",
  "$ref",
  "nullable",
]);

/** Whether a keyword is ignored: it is neither honoured nor a known constraint (annotations and unknown words). */
export function isAnnotation(key: string): boolean {
  return !SUPPORTED_KEYWORDS.has(key) && !CONSTRAINING_UNSUPPORTED.has(key);
}

/** A keyword at a JSON pointer (the pointer names the keyword itself). */
export interface KeywordSite {
  keyword: string;
  path: string;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** JSON pointer token escaping (`~` → `~0`, `/` → `~1`). */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  return base + tokens.map((t) => "/" + String(t).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export function unsupported(path: string, message: string): QtcError {
  return { code: "unsupported_keyword", message, path };
}

export function invalid(path: string, message: string): QtcError {
  return { code: "invalid_schema", message, path };
}

/** Follow a local `$ref` (`#`, `#/…` JSON pointer) in `root`; a QtcError when it is remote or dangles. */
/** `v`, or the schema its `$ref` names (one step; `v` itself when the reference does not resolve). */
export function refTarget(root: unknown, v: unknown, at: string): unknown {
  if (!isObject(v) || typeof v.$ref !== "string") return v;
  const target = resolveRef(root, v.$ref, at);
  return "code" in target ? v : target.schema;
}

export function resolveRef(root: unknown, ref: string, at: string): { schema: unknown; path: string } | QtcError {
  if (ref === "#") return { schema: root, path: "" };
  if (/^#[A-Za-z_][-A-Za-z0-9_.:]*$/.test(ref)) {
    // A plain-name fragment: the subschema whose `$id`/`id` is that fragment, or whose `$anchor` is its name.
    const found = findAnchor(root, ref);
    return found ?? invalid(pointer(at, "$ref"), `$ref "${ref}" names no $anchor or $id in the document`);
  }
  if (!ref.startsWith("#/")) return unsupported(pointer(at, "$ref"), `$ref "${ref}" is not a local reference (#/…)`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    // Own members only: `#/constructor` or `#/__proto__` names nothing in the document, not Object.prototype's.
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return invalid(pointer(at, "$ref"), `$ref "${ref}" points at nothing`);
  }
  return { schema: node, path: ref.slice(1) };
}

/** The first subschema (breadth first, at most 100,000 visited) named `#name` by `$id`/`id`, or `name` by `$anchor`. */
function findAnchor(root: unknown, ref: string): { schema: unknown; path: string } | undefined {
  const queue: [unknown, string][] = [[root, ""]];
  for (let i = 0; i < queue.length && i < 100_000; i++) {
    const [node, path] = queue[i]!;
    if (!isObject(node)) continue;
    if (node.$id === ref || node.id === ref || node.$anchor === ref.slice(1)) return { schema: node, path };
    for (const [k, v] of Object.entries(node)) {
      if (k === "enum" || k === "const" || k === "examples" || k === "default") continue;
      if (Array.isArray(v)) v.forEach((x, j) => queue.push([x, pointer(path, k, j)]));
      else if (isObject(v)) queue.push([v, pointer(path, k)]);
    }
  }
  return undefined;
}

/** Subschemas of a schema, with their pointers (what the scan walks). */
function children(schema: Record<string, unknown>, path: string): [unknown, string][] {
  const out: [unknown, string][] = [];
  const one = (key: string) => {
    if (key in schema && (isObject(schema[key]) || typeof schema[key] === "boolean")) out.push([schema[key], pointer(path, key)]);
  };
  const list = (key: string) => {
    const v = schema[key];
    if (Array.isArray(v)) v.forEach((s, i) => out.push([s, pointer(path, key, i)]));
  };
  const map = (key: string) => {
    const v = schema[key];
    if (isObject(v)) for (const [k, s] of Object.entries(v)) out.push([s, pointer(path, key, k)]);
  };
  one("additionalProperties");
  one("additionalItems");
  if (Array.isArray(schema.items)) list("items");
  else one("items");
  list("prefixItems");
  list("anyOf");
  list("oneOf");
  list("allOf");
  map("properties");
  return out;
}

/** What a scan found: the constraining keywords a grammar cannot hold, and the ignored ones (at most `MAX_SITES` each). */
export interface KeywordScan {
  /** A schema that is not a schema (a number where a subschema goes), or a `$ref` that dangles. */
  error?: QtcError;
  refused: KeywordSite[];
  ignored: KeywordSite[];
}

/** Sites a scan lists of each kind (a report, not a dump). */
export const MAX_SITES = 64;

/**
 * Every keyword, in any subschema reachable from `root` (following local `$ref`s), that constrains values but
 * that the grammar does not hold (`refused`), and every ignored one (`ignored`), by JSON pointer.
 */
export function scanKeywords(root: unknown): KeywordScan {
  const seen = new Set<unknown>();
  const out: KeywordScan = { refused: [], ignored: [] };
  const ignoredWords = new Set<string>();
  const stack: [unknown, string][] = [[root, ""]];
  while (stack.length > 0) {
    const [schema, path] = stack.pop()!;
    if (typeof schema === "boolean") continue;
    if (!isObject(schema)) {
      out.error ??= invalid(path, `a schema must be an object or a boolean, got ${typeof schema}`);
      continue;
    }
    if (seen.has(schema)) continue;
    seen.add(schema);
    for (const key of Object.keys(schema)) {
      if (SUPPORTED_KEYWORDS.has(key)) continue;
      if (CONSTRAINING_UNSUPPORTED.has(key)) {
        if (key === "propertyNames" && (schema.type === "object" || schema.type === undefined) && foldPropertyNames(schema, (v) => refTarget(root, v, path)) !== undefined) continue;
        if ((key === "contains" || key === "minContains" || key === "maxContains") && holdsContains(schema)) continue;
        if (out.refused.length < MAX_SITES) out.refused.push({ keyword: key, path: pointer(path, key) });
      } else if (!ANNOTATION_KEYWORDS.has(key) && !key.startsWith("x-") && !ignoredWords.has(key) && out.ignored.length < MAX_SITES) {
        ignoredWords.add(key);
        out.ignored.push({ keyword: key, path: pointer(path, key) });
      }
    }
    // Children are visited in order, then the `$ref` target (a stack: pushed in reverse).
    if (typeof schema.$ref === "string") {
      const target = resolveRef(root, schema.$ref, path);
      if ("code" in target) {
        if (target.code === "unsupported_keyword") {
          if (out.refused.length < MAX_SITES) out.refused.push({ keyword: "$ref", path: target.path ?? pointer(path, "$ref") });
        } else out.error ??= target;
      } else stack.push([target.schema, target.path]);
    }
    const next = children(schema, path);
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return out;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

// exclusiveMinimum/exclusiveMaximum as numbers (draft 6 on); draft 4's booleans are not merged.
const TAKE_MAX = new Set(["minimum", "minLength", "minItems", "minProperties", "exclusiveMinimum"]);
const TAKE_MIN = new Set(["maximum", "maxLength", "maxItems", "maxProperties", "exclusiveMaximum"]);

function typeList(t: unknown): string[] | undefined {
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return undefined;
}

function intersectTypes(a: string[], b: string[]): string[] {
  const out = new Set<string>();
  for (const x of a) {
    for (const y of b) {
      if (x === y) out.add(x);
      else if ((x === "integer" && y === "number") || (x === "number" && y === "integer")) out.add("integer");
    }
  }
  return [...out];
}

/**
 * Merge two schemas that must both hold (the parts of an `allOf`). Refuses, by pointer, a keyword both give
 * with values it cannot combine. `additionalProperties: false` on one side removes the other side's extra
 * properties (they could never be valid).
 */
const isWhole = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const lcm = (a: number, b: number) => (a / gcd(a, b)) * b;

/**
 * One pattern for two in one allOf: the narrower one, else one of exactly their common strings (null: none);
 * undefined when neither is built.
 */
const bothPatterns = (a: string, b: string) => narrowerPattern(a, b) ?? patternOfBoth(a, b);
/** Every JSON type (`integer` is inside `number`). */
export const EVERY_TYPE = ["null", "boolean", "object", "array", "number", "string"];
const NOT_STRING = EVERY_TYPE.filter((t) => t !== "string");

export function mergeSchemas(a: JsonSchema, b: JsonSchema, bPath: string): Result<JsonSchema> {
  const out: JsonSchema = { ...a };
  let both: string | null | undefined;
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) {
      out[key] = value;
      continue;
    }
    const mine = out[key];
    if (isAnnotation(key) || deepEqual(mine, value)) continue;
    if (TAKE_MAX.has(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.max(mine, value);
    else if (TAKE_MIN.has(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.min(mine, value);
    else if (key === "required" && Array.isArray(mine) && Array.isArray(value)) out[key] = [...new Set([...mine, ...value])];
    else if (key === "type" && typeList(mine) && typeList(value)) out[key] = intersectTypes(typeList(mine)!, typeList(value)!);
    else if (key === "enum" && Array.isArray(mine) && Array.isArray(value)) out[key] = mine.filter((x) => value.some((y) => deepEqual(x, y)));
    // Two patterns: the narrower one where one's strings all match the other, else their intersection (exact);
    // where no string matches both, no string is valid (other types still are).
    else if (key === "pattern" && typeof mine === "string" && typeof value === "string" && (both = bothPatterns(mine, value)) !== undefined) {
      if (both === null) out.type = intersectTypes(typeList(out.type) ?? EVERY_TYPE, NOT_STRING);
      else out[key] = both;
    }
    else if (key === "properties" && isObject(mine) && isObject(value)) {
      const props: Record<string, unknown> = { ...mine };
      for (const [name, s] of Object.entries(value)) props[name] = name in props && !deepEqual(props[name], s) ? { allOf: [props[name], s] } : s;
      out[key] = props;
    } else if (key === "additionalProperties" || key === "items") {
      if (mine === false || value === false) out[key] = false;
      else if (mine === true) out[key] = value;
      else if (value === true) out[key] = mine;
      else out[key] = { allOf: [mine, value] };
    } else if (key === "propertyNames" && isObject(mine) && isObject(value)) {
      // Every key must satisfy both (merged as any two schemas are).
      const both = mergeSchemas(mine, value, pointer(bPath, key));
      if (!both.ok) return both;
      out[key] = both.value;
    }
    // Two whole steps: a multiple of both is a multiple of their least common multiple (exact).
    else if (key === "multipleOf" && isWhole(mine) && isWhole(value)) out[key] = lcm(mine, value);
    else if (key === "const") out.enum = []; // two different constants: no value is both
    else if (key === "not") out.not = { anyOf: [mine, value] }; // neither A nor B
    else if ((key === "anyOf" || key === "oneOf") && Array.isArray(value) && (out.allOf === undefined || Array.isArray(out.allOf))) {
      // Both unions must hold: the second becomes an allOf part (distributed when lowered).
      out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), { [key]: value }];
    } else return err(unsupported(pointer(bPath, key), `allOf parts give "${key}" values that cannot be combined`));
  }
  for (const side of [a, b]) {
    if (side.additionalProperties !== false || !isObject(out.properties)) continue;
    const listed = new Set(Object.keys(isObject(side.properties) ? side.properties : {}));
    const props: Record<string, unknown> = {};
    for (const [name, s] of Object.entries(out.properties)) props[name] = listed.has(name) ? s : false;
    out.properties = props;
  }
  return ok(out);
}
