// Owns: defineTools, which pairs tool definitions with typed handlers and runs validated calls through them.
// Model output is untrusted: a call runs only if it names a declared tool and its arguments pass the schema.

import { fail } from "../errors.js";
import type { ToolCall } from "../parse/types.js";
import { compileValidators, type CompiledTools } from "../tools/validators.js";
import type { ToolDefinition, ToolInput } from "../tools/types.js";

/** A handler receives the call's parsed, schema-valid arguments. What it returns becomes the tool result. */
export type ToolHandler<Args> = (args: Args, call: ToolCall) => unknown | Promise<unknown>;

/** Handlers keyed by tool name; `ArgsByTool` is usually the `ToolArguments` map printed by `qtc types`. */
export type ToolHandlers<ArgsByTool> = { [Name in keyof ArgsByTool]: ToolHandler<ArgsByTool[Name]> };

/** What running one call produced: `content` goes back to the model as the call's result either way. */
export type ToolRunResult =
  | { ok: true; name: string; callId: string; content: string }
  | { ok: false; name: string; callId: string; content: string; reason: "unknown_tool" | "schema" | "handler_failed" };

export interface DefinedTools<ArgsByTool> {
  /** The normalized definitions, to pass as `tools` in a request. */
  readonly tools: readonly ToolDefinition[];
  readonly compiled: CompiledTools;
  /** Run one call: validate again (defence in depth), dispatch to its handler, turn the outcome into text. */
  run(call: ToolCall): Promise<ToolRunResult>;
  readonly handlers: ToolHandlers<ArgsByTool>;
}

/**
 * Pair tools with handlers, one per tool (checked both ways). A handler that throws does not throw out of
 * `run`: its message becomes the result, so an agent loop can hand it to the model.
 */
export function defineTools<ArgsByTool extends Record<string, unknown>>(
  tools: readonly ToolInput[],
  handlers: ToolHandlers<ArgsByTool>,
): DefinedTools<ArgsByTool> {
  const compiled = compileValidators(tools);
  const handlerNames = Object.keys(handlers);
  const missing = compiled.names.filter((name) => !handlerNames.includes(name));
  const extra = handlerNames.filter((name) => !compiled.names.includes(name));
  if (missing.length) fail("invalid_tools", `no handler for tool(s) ${missing.join(", ")}; every declared tool needs one`);
  if (extra.length) fail("invalid_tools", `handler(s) for undeclared tool(s) ${extra.join(", ")}; declared: ${compiled.names.join(", ")}`);

  async function run(call: ToolCall): Promise<ToolRunResult> {
    const base = { name: call.name, callId: call.id };
    const tool = compiled.get(call.name);
    const handler = (handlers as Record<string, ToolHandler<unknown> | undefined>)[call.name];
    if (!tool || !handler) {
      return { ...base, ok: false, reason: "unknown_tool", content: `Error: there is no tool named "${call.name}". Available tools: ${compiled.names.join(", ")}.` };
    }
    const errors = tool.validate(call.parsedArguments);
    if (errors) {
      const why = errors.map((e) => `${e.instancePath || "arguments"} ${e.message ?? e.keyword}`).join("; ");
      return { ...base, ok: false, reason: "schema", content: `Error: the arguments of ${call.name} do not fit its schema: ${why}.` };
    }
    try {
      const value = await handler(call.parsedArguments, call);
      return { ...base, ok: true, content: typeof value === "string" ? value : (JSON.stringify(value) ?? "") };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return { ...base, ok: false, reason: "handler_failed", content: `Error: ${call.name} failed: ${message}` };
    }
  }

  return Object.freeze({ tools: compiled.tools, compiled, run, handlers });
}
