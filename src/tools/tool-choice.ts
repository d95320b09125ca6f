// Owns: normalizeToolChoice, the one check of a tool choice against the declared tools (like xgrammar's
// normalize_tool_choice): every later stage reads only `none | auto | required | {name}` and checks nothing.

import { err, ok, type QtcError, type Result } from "../errors.js";
import type { ToolChoice } from "./types.js";

/** Why a tool choice was refused: API converters pick the request field at fault from it. */
export type ToolChoiceProblem = "shape" | "no_tools" | "unknown_name";

export interface ToolChoiceError extends QtcError {
  code: "invalid_tool_choice";
  problem: ToolChoiceProblem;
  /** The named tool, for `unknown_name`. */
  name?: string;
}

/** The declared tools, as names, tool objects or a compiled set (anything with the names in order). */
export type DeclaredTools = readonly string[] | readonly { readonly name: string }[] | { readonly names: readonly string[] } | undefined;

function namesOf(tools: DeclaredTools): readonly string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) return (tools as { names: readonly string[] }).names;
  return (tools as readonly (string | { name: string })[]).map((t) => (typeof t === "string" ? t : t.name));
}

/**
 * Check `choice` against the declared tools: `"auto"` and `"none"` always stand, `"required"` needs a tool, `{name}`
 * must name a declared one. The value returned is a fresh `{name}` (nothing else the caller's object held).
 */
export function normalizeToolChoice(tools: DeclaredTools, choice: unknown): Result<ToolChoice, ToolChoiceError> {
  const names = namesOf(tools);
  if (choice === "auto" || choice === "none") return ok(choice);
  if (choice === "required") {
    return names.length > 0 ? ok(choice) : refuse("no_tools", `tool choice "required" needs at least one tool`);
  }
  const name = typeof choice === "object" && choice !== null ? (choice as { name?: unknown }).name : undefined;
  if (typeof name !== "string") {
    return refuse("shape", `tool choice must be "auto", "required", "none" or {name}, got ${JSON.stringify(choice)}`);
  }
  if (!names.includes(name)) {
    const known = names.length > 0 ? `declared tools: ${names.join(", ")}` : "no tools are declared";
    return refuse("unknown_name", `tool choice names "${name}", which is not a declared tool (${known})`, name);
  }
  return ok({ name });
}

function refuse(problem: ToolChoiceProblem, message: string, name?: string): { ok: false; error: ToolChoiceError } {
  return err({ code: "invalid_tool_choice", message, problem, ...(name !== undefined ? { name } : {}) });
}
