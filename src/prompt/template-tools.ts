// Owns: turning the tools a caller passes (OpenAI, Anthropic, bare or normalized) into the objects the chat
// template receives, i.e. what an OpenAI client sends: `{type: "function", function: {name, description, parameters}}`.

import { fail } from "../errors.js";
import type { JsonSchema, ToolDefinition, ToolInput } from "../tools/types.js";

/** A tool exactly as the chat template sees it (and prints with `tojson`). */
export interface TemplateTool {
  type: "function";
  function: { name: string; description?: string; parameters?: JsonSchema; [key: string]: unknown };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function invalid(index: number, why: string): never {
  fail("invalid_tools", `tools[${index}]: ${why}`, { path: `/tools/${index}` });
}

/**
 * One tool in the template's shape. An OpenAI-shaped tool is passed through untouched (same object, same key
 * order, extra keys such as `strict` kept), because that is what the template prints; Anthropic
 * (`input_schema`) and bare (`parameters`) tools become `{type: "function", function: {name, description?,
 * parameters?}}` with only the keys they had. Throws `invalid_tools` for anything else.
 */
export function toTemplateTool(tool: ToolInput | ToolDefinition, index = 0): TemplateTool {
  if (!isObject(tool)) invalid(index, "a tool must be an object");
  if ((tool as Record<string, unknown>).type === "function" && "function" in tool) {
    const fn = (tool as { function: unknown }).function;
    if (!isObject(fn) || typeof fn.name !== "string" || fn.name === "") invalid(index, "function.name must be a non-empty string");
    return tool as TemplateTool;
  }
  const bare = tool as Record<string, unknown>;
  if (typeof bare.name !== "string" || bare.name === "") invalid(index, "name must be a non-empty string");
  const fn: TemplateTool["function"] = { name: bare.name };
  if (bare.description !== undefined) {
    if (typeof bare.description !== "string") invalid(index, "description must be a string");
    fn.description = bare.description;
  }
  const schema = "input_schema" in bare ? bare.input_schema : bare.parameters;
  if (schema !== undefined) {
    if (!isObject(schema)) invalid(index, "the parameters schema must be an object");
    fn.parameters = schema;
  }
  return { type: "function", function: fn };
}

/** Every tool in the template's shape (see {@link toTemplateTool}). */
export function toTemplateTools(tools: readonly (ToolInput | ToolDefinition)[] | undefined): TemplateTool[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) fail("invalid_tools", "tools must be an array");
  return tools.map((tool, index) => toTemplateTool(tool, index));
}
