// Owns: turning caller tool lists (OpenAI, Anthropic or bare shapes) into validated ToolDefinitions.

import { fail } from "../errors.js";
import { resolveTypeAliases } from "./type-aliases.js";
import type { JsonSchema, ToolDefinition } from "./types.js";
import { isDeclarableToolName } from "./names.js";

/**
 * Normalize a tools list. Accepts an array whose items are OpenAI tools (`{type: "function", function: {name,
 * description?, parameters?}}`), Anthropic tools (`{name, description?, input_schema}`) or bare
 * `{name, description?, parameters?}`; a missing schema means "no arguments" (`{type: "object", properties: {}}`).
 * Throws a QtcException `invalid_tools` naming the tool for any other shape, a bad name, a duplicate name or a
 * schema that is not an object schema. The result is frozen; schemas are kept by reference (not copied).
 */
export function normalizeTools(input: unknown): ToolDefinition[] {
  if (!Array.isArray(input)) {
    fail("invalid_tools", `tools must be a JSON array of tool definitions, got ${describe(input)}`);
  }
  const seen = new Set<string>();
  const tools = input.map((item, index) => {
    const tool = normalizeOne(item, index);
    if (seen.has(tool.name)) fail("invalid_tools", `tool "${tool.name}" is declared twice; tool names must be unique`);
    seen.add(tool.name);
    return Object.freeze(tool);
  });
  return Object.freeze(tools) as ToolDefinition[];
}

function normalizeOne(item: unknown, index: number): ToolDefinition {
  const where = `tool #${index + 1}`;
  if (!isObject(item)) fail("invalid_tools", `${where} must be an object, got ${describe(item)}`);
  if (item.type === "function" || isObject(item.function)) {
    if (item.type !== undefined && item.type !== "function") {
      fail("invalid_tools", `${where} has type "${String(item.type)}"; only "function" tools are supported`);
    }
    if (!isObject(item.function)) fail("invalid_tools", `${where} has type "function" but no "function" object`);
    return build(item.function, "parameters", where);
  }
  if (item.type !== undefined && item.type !== "custom") {
    fail("invalid_tools", `${where} has type "${String(item.type)}"; qtc supports function tools with a JSON Schema`);
  }
  if ("input_schema" in item) {
    if ("parameters" in item) fail("invalid_tools", `${nameOf(item, where)} has both "input_schema" and "parameters"; give one`);
    return build(item, "input_schema", where);
  }
  return build(item, "parameters", where);
}

function build(obj: Record<string, unknown>, schemaKey: "parameters" | "input_schema", where: string): ToolDefinition {
  const name = obj.name;
  if (typeof name !== "string" || name === "") fail("invalid_tools", `${where} has no "name" string`);
  if (!isDeclarableToolName(name)) {
    fail("invalid_tools", `tool "${name}" has an invalid name; use letters (any script), digits, "_", "-", "." or ":" (at most 128, starting with a letter or "_")`);
  }
  if (obj.description !== undefined && typeof obj.description !== "string") {
    fail("invalid_tools", `tool "${name}": "description" must be a string`);
  }
  const schema = obj[schemaKey];
  let parameters: JsonSchema;
  if (schema === undefined || schema === null) {
    parameters = { type: "object", properties: {} };
  } else {
    if (!isObject(schema)) fail("invalid_tools", `tool "${name}": "${schemaKey}" must be a JSON Schema object, got ${describe(schema)}`);
    const type = schema.type;
    // "dict" is BFCL's spelling of "object" (an alias, rewritten below with the others).
    const isObjectType = (t: unknown): boolean => t === "object" || t === "dict";
    if (type !== undefined && !isObjectType(type) && !(Array.isArray(type) && type.length === 1 && isObjectType(type[0]))) {
      fail("invalid_tools", `tool "${name}": "${schemaKey}" must describe an object (type "object"), got type ${JSON.stringify(type)}`);
    }
    if (schema.properties !== undefined && !isObject(schema.properties)) {
      fail("invalid_tools", `tool "${name}": "${schemaKey}.properties" must be an object`);
    }
    if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string"))) {
      fail("invalid_tools", `tool "${name}": "${schemaKey}.required" must be an array of property names`);
    }
    parameters = schema;
  }
  const aliased = resolveTypeAliases(name, parameters);
  const tool: ToolDefinition = { name, parameters: aliased.schema };
  if (aliased.notes.length > 0) tool.notes = aliased.notes;
  if (typeof obj.description === "string") tool.description = obj.description;
  return tool;
}

function nameOf(item: Record<string, unknown>, fallback: string): string {
  return typeof item.name === "string" ? `tool "${item.name}"` : fallback;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)?.slice(0, 40)}`;
}
