// Owns: the tools section of the system prompt, spelled exactly as each template writes it: Qwen3 (hermes)
// lists each tool as `tojson`; Qwen3-Coder (qwen3coder) lists each tool as XML-ish fields; Qwen3.5 (qwen35)
// lists each tool as `tojson` under Qwen3-Coder's instructions.

import { hermes, qwen35, qwen3coder, type ToolCallFormat } from "../formats/index.js";
import { pythonJsonDumps, pythonStr, pythonStrip } from "./python-json.js";
import { renderToolCall } from "./render-calls.js";
import { PromptBuilder } from "./segments.js";
import type { TemplateTool } from "./template-tools.js";

/**
 * Qwen3's tools section, from `# Tools` to the close tag of the example call (the template then ends the
 * system turn), written into `out`. Each tool is one line of `tojson`: content, since names, descriptions
 * and schemas come from the client.
 */
export function writeHermesToolsSection(out: PromptBuilder, tools: readonly TemplateTool[], format: ToolCallFormat = hermes): void {
  const open = format.open.text;
  const close = format.close.text;
  const example = format.bodyShape("<function-name>", "<args-json-object>");
  out.markup(
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
      "You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
  );
  for (const tool of tools) out.markup("\n").content(pythonJsonDumps(tool, "invalid_tools"));
  out.markup(
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within " +
      `${open}${close} XML tags:\n${open}${format.framing}${example}${format.framing}${close}`,
  );
}

/** Qwen3's tools section as text (see {@link writeHermesToolsSection}). */
export function renderHermesToolsSection(tools: readonly TemplateTool[], format: ToolCallFormat = hermes): string {
  const out = new PromptBuilder();
  writeHermesToolsSection(out, tools, format);
  return out.text();
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A field value as the template prints it: JSON for objects and arrays, Python's str() otherwise. */
function fieldText(value: unknown): string {
  return value !== null && typeof value === "object" ? pythonJsonDumps(value, "invalid_tools") : pythonStr(value, "invalid_tools");
}

/** Qwen3-Coder's `render_extra_keys` macro: every key not handled yet, as `<key>value</key>`. */
function writeExtraKeys(out: PromptBuilder, dict: unknown, handled: readonly string[]): void {
  if (!isMapping(dict)) return;
  for (const [key, value] of Object.entries(dict)) {
    if (handled.includes(key) || value === undefined) continue;
    out.markup("\n<").content(key).markup(">").content(fieldText(value)).markup("</").content(key).markup(">");
  }
}

/** One `<tag>text</tag>` field whose text is client input. */
function writeField(out: PromptBuilder, tag: string, text: string): void {
  out.markup(`\n<${tag}>`).content(text).markup(`</${tag}>`);
}

function writeCoderTool(out: PromptBuilder, tool: TemplateTool): void {
  const fn = tool.function;
  out.markup("\n<function>");
  writeField(out, "name", fn.name);
  if (fn.description !== undefined) writeField(out, "description", pythonStrip(pythonStr(fn.description, "invalid_tools")));
  out.markup("\n<parameters>");
  const params = fn.parameters;
  if (isMapping(params) && isMapping(params.properties)) {
    for (const [name, fields] of Object.entries(params.properties)) {
      if (fields === undefined) continue;
      out.markup("\n<parameter>");
      writeField(out, "name", name);
      if (isMapping(fields)) {
        if (fields.type !== undefined) writeField(out, "type", pythonStr(fields.type, "invalid_tools"));
        if (fields.description !== undefined) writeField(out, "description", pythonStrip(pythonStr(fields.description, "invalid_tools")));
        writeExtraKeys(out, fields, ["name", "type", "description"]);
      }
      out.markup("\n</parameter>");
    }
  }
  writeExtraKeys(out, params, ["type", "properties"]);
  out.markup("\n</parameters>");
  writeExtraKeys(out, fn, ["type", "name", "description", "parameters"]);
  out.markup("\n</function>");
}

/**
 * The instructions after `</tools>` that Qwen3-Coder's and Qwen3.5's templates share: the example call (rendered
 * by the format itself; markup, the template's own text) and the `<IMPORTANT>` reminder.
 */
function writeXmlCallInstructions(out: PromptBuilder, format: ToolCallFormat): void {
  const example = renderToolCall(
    {
      name: "example_function_name",
      arguments: {
        example_parameter_1: "value_1",
        example_parameter_2: "This is the value for the second parameter\nthat can span\nmultiple lines",
      },
    },
    format,
  );
  out.markup(
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n" +
      example +
      "\n\n<IMPORTANT>\nReminder:\n" +
      `- Function calls MUST follow the specified format: an inner ${format.bodyShape("...", "")}` +
      ` block must be nested within ${format.open.text}${format.close.text} XML tags\n` +
      "- Required parameters MUST be specified\n" +
      "- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n" +
      "- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n" +
      "</IMPORTANT>",
  );
}

/**
 * Qwen3-Coder's tools section, from the blank line after the system text to `</IMPORTANT>` (the template
 * then ends the system turn), written into `out`.
 */
export function writeCoderToolsSection(out: PromptBuilder, tools: readonly TemplateTool[], format: ToolCallFormat = qwen3coder): void {
  out.markup("\n\n# Tools\n\nYou have access to the following functions:\n\n<tools>");
  for (const tool of tools) writeCoderTool(out, tool);
  writeXmlCallInstructions(out, format);
}

/**
 * Qwen3.5's (and Qwen3.6's) tools section, from `# Tools` to `</IMPORTANT>`, written into `out`: each tool is
 * one line of `tojson` (content: client input), then the same instructions as Qwen3-Coder's.
 */
export function writeQwen35ToolsSection(out: PromptBuilder, tools: readonly TemplateTool[], format: ToolCallFormat = qwen35): void {
  out.markup("# Tools\n\nYou have access to the following functions:\n\n<tools>");
  for (const tool of tools) out.markup("\n").content(pythonJsonDumps(tool, "invalid_tools"));
  writeXmlCallInstructions(out, format);
}

/** Qwen3-Coder's tools section as text (see {@link writeCoderToolsSection}). */
export function renderCoderToolsSection(tools: readonly TemplateTool[], format: ToolCallFormat = qwen3coder): string {
  const out = new PromptBuilder();
  writeCoderToolsSection(out, tools, format);
  return out.text();
}
