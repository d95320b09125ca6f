// Owns: the well-known non-standard `type` names tool schemas carry in the wild (BFCL-style `float`, `dict`,
// `tuple`, `any`, and Python's `int`/`bool`/`str`/`list`), rewritten to JSON Schema types with a note each, and
// the clear error (`invalid_schema`) for any other unknown type (naming the tool and the JSON pointer).

import { fail } from "../errors.js";
import type { JsonSchema } from "./types.js";

/** Alias → JSON Schema type; `null` means "any type" (the `type` keyword is dropped). */
export const TYPE_ALIASES: Readonly<Record<string, string | null>> = Object.freeze({
  float: "number",
  double: "number",
  int: "integer",
  bool: "boolean",
  str: "string",
  dict: "object",
  list: "array",
  tuple: "array",
  any: null,
});

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);
/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example", "required"]);
const MAX_WALK_DEPTH = 64;

export interface AliasedSchema {
  schema: JsonSchema;
  /** One note per rewritten type, e.g. `type "float" at /properties/x/type read as "number"`. */
  notes: string[];
}

/** Rewrite aliased types (copy on write: the input is never changed). Throws `invalid_schema` for an unknown type. */
export function resolveTypeAliases(toolName: string, schema: JsonSchema): AliasedSchema {
  const notes: string[] = [];
  const out = walk(schema, "", 0, toolName, notes) as JsonSchema;
  return { schema: out, notes };
}

function walk(node: unknown, pointer: string, depth: number, tool: string, notes: string[]): unknown {
  if (depth > MAX_WALK_DEPTH || node === null || typeof node !== "object") return node;
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined;
    node.forEach((item, i) => {
      const next = walk(item, `${pointer}/${i}`, depth + 1, tool, notes);
      if (next !== item) (copy ??= [...node])[i] = next;
    });
    return copy ?? node;
  }
  const obj = node as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(obj)) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (key === "type") {
      const type = rewriteType(value, at, tool, notes);
      if (type !== value) {
        copy ??= { ...obj };
        if (type === undefined) delete copy.type;
        else copy.type = type;
      }
    } else if (!DATA_KEYWORDS.has(key)) {
      const next = walk(value, at, depth + 1, tool, notes);
      if (next !== value) (copy ??= { ...obj })[key] = next;
    }
  }
  return copy ?? obj;
}

function rewriteType(value: unknown, at: string, tool: string, notes: string[]): unknown {
  if (typeof value === "string") return rewriteOne(value, at, tool, notes);
  if (!Array.isArray(value)) return value;
  const types = value.map((t, i) => (typeof t === "string" ? rewriteOne(t, `${at}/${i}`, tool, notes) : t));
  if (types.includes(undefined)) return undefined; // "any" among the types: no restriction at all
  return types.every((t, i) => t === value[i]) ? value : [...new Set(types)];
}

function rewriteOne(type: string, at: string, tool: string, notes: string[]): string | undefined {
  if (JSON_TYPES.has(type)) return type;
  if (Object.hasOwn(TYPE_ALIASES, type)) {
    const to = TYPE_ALIASES[type];
    notes.push(`tool "${tool}": type "${type}" at ${at} read as ${to === null ? "any type" : `"${to}"`}`);
    return to ?? undefined;
  }
  fail(
    "invalid_schema",
    `tool "${tool}": unknown type ${JSON.stringify(type).slice(0, 60)} at ${at}; use one of ${[...JSON_TYPES].join(", ")} (accepted aliases: ${Object.keys(TYPE_ALIASES).join(", ")})`,
    { path: at },
  );
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
