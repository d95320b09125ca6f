// Owns: small checks shared by the OpenAI and Anthropic request converters (objects, strings, tool names,
// seeds, token limits), each failing with a 400 that names the field.

import { QtcException } from "../errors.js";
import { compileValidators, compileValueValidator } from "../tools/index.js";
import type { JsonSchema, ToolInput } from "../tools/types.js";
import { ApiError, badRequest } from "./api-error.js";

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

/** Tool names qtc accepts: 1–128 of letters, digits, `_`, `-`, `.`, `:` (OpenAI's set plus MCP-style separators). */
export const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

export function requireToolName(value: unknown, param: string): string {
  const name = requireString(value, param);
  if (!TOOL_NAME.test(name)) {
    throw badRequest(`${param} must be 1-128 characters of letters, digits, "_", "-", "." or ":"; got ${JSON.stringify(name)}.`, param);
  }
  return name;
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

export function checkMaxTokens(value: number, limit: number, param: string): number {
  if (value > limit) throw badRequest(`${param} is ${value}; this server allows at most ${limit}.`, param);
  return value;
}

/** The name list for an error message: `read_file, grep` or `(none)`. */
export function listNames(names: string[]): string {
  return names.length ? names.map((n) => `"${n}"`).join(", ") : "(no tools were given)";
}

/**
 * Compile the tools' schemas now (cached; the runtime reuses the result), so a schema that does not compile is a
 * 400 naming `tools` before the request waits for a slot.
 */
export function checkToolSchemas(tools: ToolInput[]): void {
  if (tools.length) as400("tools", () => compileValidators(tools));
}

/** Compile a response schema now, so one that does not compile is a 400 naming `param`. */
export function checkResponseSchema(schema: JsonSchema, param: string): void {
  as400(param, () => compileValueValidator(schema));
}

/** Run `check`; a QtcException it throws becomes a 400 naming `param`. */
function as400(param: string, check: () => unknown): void {
  try {
    check();
  } catch (e) {
    if (e instanceof QtcException) throw new ApiError(400, e.code, e.message, param);
    throw e;
  }
}
