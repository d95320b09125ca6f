// Owns: judging decoded arguments against the declared tools (name, required, unknown, ajv schema, limits)
// and the messages the model reads when a call is rejected.
//
// Reason codes a rejected block carries (CallError.reason; defined in src/errors.ts, stable):
// | code                | when                                                                               |
// |---------------------|------------------------------------------------------------------------------------|
// | invalid_json        | hermes body (or a qwen3coder JSON body) is not strict JSON, e.g. a raw newline in a string |
// | bad_shape           | not `{"name", "arguments"}` exactly / arguments not an object / XML tags malformed, |
// |                     | unclosed `</function>` in a closed block, text where a tag belongs, wrong format    |
// | unknown_tool        | the name is not a declared tool (exact match; never guessed or case-corrected)     |
// | missing_arguments   | a required argument is absent                                                      |
// | unknown_arguments   | an argument the schema does not list (and `additionalProperties` is not true)      |
// | schema              | a value fails the tool's JSON Schema (ajv: types, enums, formats, nested objects)  |
// | truncated           | the final block was cut off (no close tag) and its body is not complete            |
// | duplicate_parameter | the same parameter twice in one qwen3coder function                                |
// | mixed_forms         | `<parameter=…>`, child tags and a JSON body mixed in one function                  |
// | multiple_functions  | two `<function=…>` in one tool-call block                                          |
// | too_large           | a block over maxBlockBytes, a string, array or nesting over the limits (nesting is |
// |                     | checked on the text, iteratively, before any recursive reader runs)                |
// | invalid_utf8        | the block holds U+FFFD (bytes that were not valid UTF-8), or a lone surrogate      |
// |                     | (raw or a `\ud800` escape: it cannot be written as UTF-8), in a value, key or name |
// | empty_block         | a closed tool-call block with nothing inside                                       |
// | duplicate_key       | one object gives a key twice (any format: JSON bodies, JSON or Python-literal values) |

import type { CallErrorCode } from "../errors.js";
import { linearRegExp } from "../tools/linear-regexp.js";
import type { CompiledTool, CompiledTools, SchemaError } from "../tools/validators.js";
import { checkLimits } from "./limits.js";
import type { ParseLimits } from "./options.js";

export type Verdict = { ok: true } | { ok: false; reason: CallErrorCode; message: string };

const MAX_LISTED = 5;

/** The message for a call to a tool that is not declared. */
export function unknownToolMessage(name: string, tools: CompiledTools): string {
  if (tools.names.length === 0) return `There is no tool named "${name}": no tools are available here. Answer in text instead.`;
  return `There is no tool named "${name}". Available tools: ${tools.names.join(", ")}. Call one of them by its exact name, or answer in text.`;
}

/** Check arguments: limits always; with a tool, required and unknown arguments, then its schema. */
export function validateArguments(name: string, args: Record<string, unknown>, tool: CompiledTool | undefined, limits: ParseLimits): Verdict {
  const limit = checkLimits(args, limits);
  if (limit?.reason === "too_large") return { ok: false, reason: "too_large", message: `Your ${name} call is too large: ${limit.problem}. Send less in one call.` };
  if (limit) return { ok: false, reason: "invalid_utf8", message: `Your ${name} call is not valid text: ${limit.problem}. Write the character itself, or a complete surrogate pair, and call ${name} again.` };
  if (!tool) return { ok: true };
  let missing: string[] | undefined;
  for (const r of tool.required) if (!Object.hasOwn(args, r)) (missing ??= []).push(r);
  let unknown: string[] | undefined;
  if (!tool.allowsExtra) {
    for (const k in args) {
      if (Object.hasOwn(args, k) && !tool.properties.has(k) && !matchesPattern(tool.patterns, k)) (unknown ??= []).push(k);
    }
  }
  if (missing || unknown) {
    const parts: string[] = [];
    if (missing) parts.push(`it is missing the required argument${missing.length > 1 ? "s" : ""} ${quoteList(missing)}`);
    if (unknown) parts.push(`${name} takes no argument${unknown.length > 1 ? "s" : ""} named ${quoteList(unknown)}`);
    const what = missing ? "is incomplete" : "has arguments it does not take";
    const message = `Your ${name} call ${what}: ${parts.join("; ")}. ${signature(tool)} Call ${name} again with exactly these arguments.`;
    return { ok: false, reason: missing ? "missing_arguments" : "unknown_arguments", message };
  }
  const errors = tool.validate(args);
  if (errors) {
    const listed = errors.slice(0, MAX_LISTED).map(describeSchemaError);
    const more = errors.length > MAX_LISTED ? ` (and ${errors.length - MAX_LISTED} more)` : "";
    return {
      ok: false,
      reason: "schema",
      message: `The arguments of your ${name} call do not match its schema: ${unique(listed).join("; ")}${more}. Fix them and call ${name} again.`,
    };
  }
  return { ok: true };
}

/** "Its arguments are: path (string, required), content (string)." */
function signature(tool: CompiledTool): string {
  if (tool.properties.size === 0) return `${tool.name} takes no arguments.`;
  const items = [...tool.properties].slice(0, 20).map(([key, schema]) => {
    const type = typeof schema.type === "string" ? schema.type : Array.isArray(schema.type) ? schema.type.join("|") : undefined;
    const notes = [type, tool.required.includes(key) ? "required" : undefined].filter(Boolean);
    return notes.length ? `${key} (${notes.join(", ")})` : key;
  });
  return `Its arguments are: ${items.join(", ")}.`;
}

function describeSchemaError(e: SchemaError): string {
  const where = e.instancePath === "" ? "the arguments" : `argument ${pointerToPath(e.instancePath)}`;
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "enum":
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${where} must be ${JSON.stringify(params.allowedValue)}`;
    case "additionalProperties":
      return `${where} must not have the property "${String(params.additionalProperty)}"`;
    case "required":
      return `${where} must have the property "${String(params.missingProperty)}"`;
    default:
      return `${where} ${e.message ?? `fails "${e.keyword}"`}`;
  }
}

/** `/a/0/b` → `"a[0].b"`. */
function pointerToPath(pointer: string): string {
  const parts = pointer.slice(1).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  let out = parts[0] ?? "";
  for (const p of parts.slice(1)) out += /^\d+$/.test(p) ? `[${p}]` : `.${p}`;
  return `"${out}"`;
}

function matchesPattern(patterns: readonly RegExp[], key: string): boolean {
  for (const p of patterns) {
    let re = LINEAR.get(p);
    if (!re) LINEAR.set(p, (re = linearRegExp(p.source, "u")));
    if (re.test(key)) return true;
  }
  return false;
}

// A patternProperties key is matched in linear time, like ajv's own check (see linear-regexp.ts). A cache only:
// entries live as long as the compiled tool's RegExp objects.
const LINEAR = new WeakMap<RegExp, { test(s: string): boolean }>();

function quoteList(names: string[]): string {
  return names.map((n) => `"${n}"`).join(", ");
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
