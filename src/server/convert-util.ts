// Owns: small checks shared by the OpenAI and Anthropic request converters (objects, strings, tool names,
// seeds, token limits, nesting depth), each failing with a 400 that names the field.

import { QtcException } from "../errors.js";
import { checkSchemaSize, newSizeMeter } from "../grammar/limits.js";
import { compileToolGrammar, type GrammarCache, type UnsupportedPolicy } from "../grammar/index.js";
import { compileValidators, compileValueValidator, normalizeToolChoice, type ToolChoiceProblem, type ValidatorCache } from "../tools/index.js";
import type { ToolChoice } from "../tools/types.js";
import type { JsonSchema, ToolInput } from "../tools/types.js";
import { ApiError, badRequest, unsupported } from "./api-error.js";
import { isDeclarableToolName } from "../tools/names.js";
import type { GenerateRequest } from "../runtime/types.js";

export type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, param: string): Obj {
  if (!isObject(value)) throw badRequest(`${param} must be an object.`, param);
  return value;
}

export function requireString(value: unknown, param: string): string {
  if (typeof value !== "string") throw badRequest(`${param} must be a string.`, param);
  return value;
}

export function optionalString(value: unknown, param: string): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, param);
}


export function requireToolName(value: unknown, param: string): string {
  const name = requireString(value, param);
  if (!isDeclarableToolName(name)) {
    throw badRequest(`${param} must be 1-128 characters of letters (any script), digits, "_", "-", "." or ":", starting with a letter or "_"; got ${JSON.stringify(name)}.`, param);
  }
  return name;
}

/**
 * A request's `tools`, each of type "function", as the runtime's tools: `fieldsOf` finds the object holding a
 * tool's `name`, `description` and `parameters` and the path it sits at (nested under `function` in chat
 * completions, flat in the Responses API). Names must be unique and every schema must compile.
 */
export function convertFunctionTools(
  raw: unknown,
  check: SchemaCheck,
  fieldsOf: (tool: Obj, p: string) => { fn: Obj; at: string },
): { tools: ToolInput[]; names: string[] } {
  if (raw === undefined || raw === null) return { tools: [], names: [] };
  const tools = (raw as unknown[]).map((t, i): ToolInput => {
    const p = `tools[${i}]`;
    const tool = requireObject(t, p);
    if (tool.type !== "function") {
      throw unsupported(`${p}.type`, `Only tools of type "function" are supported; got ${JSON.stringify(tool.type)}.`);
    }
    const { fn, at } = fieldsOf(tool, p);
    const name = requireToolName(fn.name, `${at}.name`);
    const description = optionalString(fn.description, `${at}.description`);
    if (fn.parameters !== undefined && fn.parameters !== null && !isObject(fn.parameters)) {
      throw badRequest(`${at}.parameters must be a JSON Schema object.`, `${at}.parameters`);
    }
    const parameters = (fn.parameters ?? { type: "object", properties: {} }) as JsonSchema;
    return { type: "function", function: { name, ...(description !== undefined ? { description } : {}), parameters } };
  });
  const names = tools.map((t) => ("function" in t ? t.function.name : t.name));
  checkUniqueNames(names, "tools");
  checkToolSchemas(tools, check, tools.map((_, i) => `tools[${i}]`));
  return { tools, names };
}

/** Refuse a second tool with the same name. */
export function checkUniqueNames(names: string[], param: string): void {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (seen.has(name)) throw badRequest(`Two tools are named "${name}". Tool names must be unique.`, `${param}[${i}]`);
    seen.add(name);
  });
}

/** A request seed reduced to the 32-bit range llama.cpp samples with (same seed, same output). */
export function seedOf(seed: unknown): number | undefined {
  if (typeof seed !== "number") return undefined;
  return Number(BigInt.asUintN(32, BigInt(Math.trunc(seed))));
}

/** The operator's bounds on a request's output-token ask (`--max-tokens-limit`, `--max-tokens-cap`). */
export interface AskBounds {
  maxTokensLimit: number;
  maxTokensCap?: number | undefined;
}

/**
 * A request's output-token ask, refused above the server's limit, unless the operator set a cap: then every ask
 * stands here and the budget clamps it to the cap, said in the response (agents ask for more than a local server
 * allows: Claude Code sends 64,000 on some turns).
 */
export function checkMaxTokens(value: number, bounds: AskBounds, param: string): number {
  const limit = bounds.maxTokensLimit;
  if (bounds.maxTokensCap === undefined && value > limit) throw badRequest(`${param} is ${value}; this server allows at most ${limit}.`, param);
  return value;
}

/** The name list for an error message: `read_file, grep` or `(none)`. */
export function listNames(names: string[]): string {
  return names.length ? names.map((n) => `"${n}"`).join(", ") : "(no tools were given)";
}

/** Where and how the server judges request schemas before a request waits for a slot. */
export interface SchemaCheck {
  /** The validator cache `serve()` shares with its runtime. Default: none (compiled each time). */
  validators?: ValidatorCache;
  /** The server's schema policy (`qtc serve --unsupported`). Default: "validate", the runtime's own. */
  unsupported?: UnsupportedPolicy;
  /** Where strict-policy grammar checks are cached. Default: none. */
  grammars?: GrammarCache;
}

/**
 * Compile the tools' schemas now (in the server's cache, which `serve()` shares with its runtime), so a schema that
 * does not compile is a 400 naming `tools` before the request waits for a slot. Under the strict policy every
 * tool's grammar is compiled too (whatever the tool choice, so the verdict never depends on it): a tool the
 * grammar cannot hold exactly is refused naming it and its place (`at`). Under validate the runtime compiles
 * every tool the same way and leaves such keywords to the validator, which the response reports.
 */
export function checkToolSchemas(tools: ToolInput[], check: SchemaCheck = {}, at?: readonly string[]): void {
  if (!tools.length) return;
  // The size limits first (a bounded walk), so no schema over them costs an ajv compile.
  const meter = newSizeMeter();
  for (const tool of tools) checkSizeFirst("tools", "function" in tool ? tool.function.parameters : "input_schema" in tool ? tool.input_schema : tool.parameters, meter);
  const compiled = as400("tools", () => compileValidators(tools, check.validators));
  if (check.unsupported === "strict") checkStrictGrammar(compiled.tools, check.grammars, at);
}

/** The strict policy's verdict on a tool list: its grammar under "auto" (every tool in it), budget aside. */
function checkStrictGrammar(tools: CompiledToolList, grammars: GrammarCache | undefined, at: readonly string[] | undefined): void {
  const options = { toolChoice: "auto" as const, unsupported: "strict" as const, maxTokens: STRICT_CHECK_TOKENS };
  const r = grammars ? grammars.compile(tools, options) : compileToolGrammar(tools, options);
  if (r.ok || r.error.code === "budget_too_small") return;
  const index = tools.findIndex((t) => r.error.message.startsWith(`tool "${t.name}"`));
  const param = index >= 0 ? (at?.[index] ?? `tools[${index}]`) : "tools";
  const where = r.error.path ? ` (at ${r.error.path})` : "";
  const advice = r.error.code === "unsupported_keyword" ? " This server runs with --unsupported strict; under validate (the default) such a keyword is left to the validator." : "";
  throw new ApiError(400, r.error.code, `${r.error.message}${where}.${advice}`, param);
}

type CompiledToolList = ReturnType<typeof compileValidators>["tools"];

/** The budget the strict check compiles for: its verdict is about keywords, not budgets (those are per request). */
const STRICT_CHECK_TOKENS = 4096;

/** Compile a response schema now, so one that does not compile is a 400 naming `param`. */
export function checkResponseSchema(schema: JsonSchema, param: string, cache?: ValidatorCache): void {
  checkSizeFirst(param, schema, newSizeMeter());
  as400(param, () => compileValueValidator(schema, cache));
}

/** The grammar's document limits (values, string bytes, depth, enum and union sizes) as a 400 naming `param`. */
function checkSizeFirst(param: string, schema: unknown, meter: ReturnType<typeof newSizeMeter>): void {
  const over = checkSchemaSize(schema, meter);
  if (over) throw new ApiError(400, over.code, `${param}: ${over.message}${over.path ? ` (at ${over.path})` : ""}`, param);
}

/**
 * Depth of every top-level field of a request body before anything reads it: schema-bearing fields (`tools`,
 * `response_format`, `text`) may nest up to SCHEMA_FIELD_DEPTH (their own walker then refuses past its limit with
 * `schema_too_large`); conversation fields (`messages`, `input`, `system`, `prompt`) are left to `checkDepthAfter`,
 * once the converter's own checks (which name the exact field) have run; every other field may nest `maxDepth`
 * plus the few levels the API's own shape adds.
 */
export function checkBodyDepth(body: unknown, maxDepth: number): void {
  if (!isObject(body)) return;
  for (const [key, value] of Object.entries(body)) {
    if (typeof value !== "object" || value === null || CONVERSATION_FIELDS.has(key)) continue;
    checkNesting(value, SCHEMA_FIELDS.has(key) ? SCHEMA_FIELD_DEPTH : maxDepth + SHAPE_DEPTH, key);
  }
}

/** The conversation fields' depth, after their converter ran (what is left too deep is in fields it ignores). */
export function checkDepthAfter(body: unknown, maxDepth: number): void {
  if (!isObject(body)) return;
  for (const key of CONVERSATION_FIELDS) {
    const value = body[key];
    if (typeof value === "object" && value !== null) checkNesting(value, maxDepth + SHAPE_DEPTH, key);
  }
}

/** Fields that carry JSON Schemas. */
const SCHEMA_FIELDS: ReadonlySet<string> = new Set(["tools", "response_format", "text", "structured_outputs", "guided_json", "json_schema", "x-qtc-constraint"]);
/** Fields that carry the conversation: converted first, with exact fields named. */
const CONVERSATION_FIELDS: ReadonlySet<string> = new Set(["messages", "input", "system", "prompt"]);
/** Depth a schema-bearing field may reach before its schema walker judges it (a bound on that walk too). */
const SCHEMA_FIELD_DEPTH = 4096;
/** Levels an API's own shape adds above a value (`messages[i].content[j].input`). */
const SHAPE_DEPTH = 8;

/** How one API words and places a refused tool choice: the message and request field for each problem. */
export type ToolChoiceWording = Record<ToolChoiceProblem, { message: string; param: string }>;

/**
 * A tool choice already mapped from the API's shape, checked by the one normalizer (normalizeToolChoice); a
 * refusal becomes a 400 `invalid_tool_choice` worded and placed by the API's converter.
 */
export function checkToolChoice(choice: ToolChoice, names: readonly string[], wording: (name: string | undefined) => ToolChoiceWording): ToolChoice {
  const normalized = normalizeToolChoice(names, choice);
  if (normalized.ok) return normalized.value;
  const { message, param } = wording(normalized.error.name)[normalized.error.problem];
  throw new ApiError(400, "invalid_tool_choice", message, param);
}

/**
 * Refuse a value (history tool-call arguments, `tool_use.input`) nested deeper than `maxDepth` objects and arrays
 * before anything renders it: the prompt renderer recurses, and 10,000 levels overflow its stack. Iterative.
 */
export function checkNesting(value: unknown, maxDepth: number, param: string): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > maxDepth) throw tooDeep(maxDepth, param);
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
}

/** checkNesting for JSON text (arguments sent as a string), by counting brackets outside strings: no parse. */
export function checkTextNesting(text: string, maxDepth: number, param: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) throw tooDeep(maxDepth, param);
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}

function tooDeep(maxDepth: number, param: string): ApiError {
  return badRequest(`${param} is nested deeper than ${maxDepth} levels of objects and arrays; send flatter arguments.`, param);
}

/** Run `check`; a QtcException it throws becomes a 400 naming `param`. */
function as400<T>(param: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof QtcException) throw new ApiError(400, e.code, e.message, param);
    throw e;
  }
}

