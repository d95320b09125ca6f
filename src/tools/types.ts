// Owns: the normalized tool definition every stage reads (OpenAI, Anthropic and bare inputs map onto it).

/** A JSON Schema object, as given by the caller. */
export type JsonSchema = { [key: string]: unknown };

/** One tool, normalized. `parameters` is always an object schema. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: JsonSchema;
  /** What normalizing changed, e.g. a BFCL type alias read as its JSON Schema type (see type-aliases.ts). */
  notes?: readonly string[];
}

/** What the caller may pass as tools: OpenAI `{type:"function", function:{…}}`, Anthropic `{name, input_schema}`, or bare `{name, parameters}`. */
export type ToolInput =
  | { type: "function"; function: { name: string; description?: string; parameters?: JsonSchema; strict?: boolean } }
  | { name: string; description?: string; input_schema: JsonSchema }
  | { name: string; description?: string; parameters?: JsonSchema };

/**
 * Which calls a turn may make, normalized once (like xgrammar's normalize_tool_choice):
 * `auto` = free text or calls, `required` = at least one call, `{name}` = exactly that function, `none` = no calls.
 */
export type ToolChoice = "auto" | "required" | "none" | { name: string };
