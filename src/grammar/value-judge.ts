// Owns: judging finitely many candidate values against a schema with qtc's validator, so that a keyword the
// grammar cannot spell is still held exactly where the values are few (an enum beside a pattern, `not` beside
// an enum or a type of few values).

import type { JsonSchema } from "../tools/types.js";
import { compileValueValidator } from "../tools/validators.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether a schema holds a reference anywhere (enum/const values are data and not looked into). */
export function mentionsRef(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(mentionsRef);
  if (!isObject(v)) return false;
  return Object.entries(v).some(([k, x]) => k === "$ref" || k === "$dynamicRef" || k === "$recursiveRef" || (k !== "enum" && k !== "const" && mentionsRef(x)));
}

/**
 * `schema` as a predicate (the validator's verdict). A `$ref` is resolved in `root` (its definitions travel
 * with the schema); undefined when the validator cannot compile it (the caller then does without).
 */
export function judgeOf(schema: unknown, root?: unknown): ((v: unknown) => boolean) | undefined {
  if (typeof schema === "boolean") return () => schema;
  if (!isObject(schema)) return undefined;
  let whole: Record<string, unknown> = schema;
  if (mentionsRef(schema)) {
    if (!isObject(root) || mentionsId(root)) return undefined;
    const { definitions, $defs } = root;
    whole = { ...schema, ...(definitions === undefined ? {} : { definitions }), ...($defs === undefined ? {} : { $defs }) };
  }
  try {
    const validate = compileValueValidator(whole as JsonSchema);
    return (v) => validate(v) === null;
  } catch {
    return undefined;
  }
}

/** A document with `$id`/`id` base URIs (refs would resolve against them, not against the copied definitions). */
function mentionsId(root: Record<string, unknown>): boolean {
  return JSON.stringify(root).includes('"$id"') || typeof root.id === "string";
}

/** The few values a schema's type allows when it allows few (null, booleans, the empty string); else undefined. */
export function fewValues(s: JsonSchema): unknown[] | undefined {
  const types = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? s.type : undefined;
  if (!types) return undefined;
  const out: unknown[] = [];
  for (const t of types) {
    if (t === "null") out.push(null);
    else if (t === "boolean") out.push(true, false);
    else if (t === "string" && s.maxLength === 0) out.push("");
    else return undefined;
  }
  return out;
}
