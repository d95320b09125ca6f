// Owns: the tools section of the system prompt, spelled exactly as each template writes it: Qwen3 (hermes)
// lists each tool as `tojson`; Qwen3-Coder (qwen3coder) lists each tool as XML-ish fields.

import { fail } from "../errors.js";
import { hermes, qwen3coder, type ToolCallFormat } from "../formats/index.js";
import { pythonJsonDumps, pythonStr, pythonStrip } from "./python-json.js";
import { renderToolCall } from "./render-calls.js";
import type { TemplateTool } from "./template-tools.js";

/**
 * Qwen3's tools section, from `# Tools` to the close tag of the example call (the template then ends the
 * system turn). Each tool is one line of `tojson`.
 */
export function renderHermesToolsSection(tools: readonly TemplateTool[], format: ToolCallFormat = hermes): string {
  const open = format.open.text;
  const close = format.close.text;
  const body = format.body;
  if (body.kind !== "json") fail("unknown_format", `format "${format.id}" has no JSON body for the Qwen3 tools section`);
  const example =
    `{"${body.nameKey}"${body.keySep}<function-name>${body.itemSep}"${body.argumentsKey}"${body.keySep}<args-json-object>}`;
  let out =
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
  for (const tool of tools) out += "\n" + pythonJsonDumps(tool);
  out +=
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within " +
    `${open}${close} XML tags:\n${open}${format.framing}${example}${format.framing}${close}`;
  return out;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Qwen3-Coder's `render_extra_keys` macro: every key not handled yet, as `<key>value</key>`. */
function extraKeys(dict: unknown, handled: readonly string[]): string {
  if (!isMapping(dict)) return "";
  let out = "";
  for (const [key, value] of Object.entries(dict)) {
    if (handled.includes(key) || value === undefined) continue;
    const text = value !== null && typeof value === "object" ? pythonJsonDumps(value) : pythonStr(value);
    out += `\n<${key}>${text}</${key}>`;
  }
  return out;
}

function coderTool(tool: TemplateTool): string {
  const fn = tool.function;
  let out = `\n<function>\n<name>${fn.name}</name>`;
  if (fn.description !== undefined) out += `\n<description>${pythonStrip(pythonStr(fn.description))}</description>`;
  out += "\n<parameters>";
  const params = fn.parameters;
  if (isMapping(params) && isMapping(params.properties)) {
    for (const [name, fields] of Object.entries(params.properties)) {
      if (fields === undefined) continue;
      out += `\n<parameter>\n<name>${name}</name>`;
      if (isMapping(fields)) {
        if (fields.type !== undefined) out += `\n<type>${pythonStr(fields.type)}</type>`;
        if (fields.description !== undefined) {
          out += `\n<description>${pythonStrip(pythonStr(fields.description))}</description>`;
        }
        out += extraKeys(fields, ["name", "type", "description"]);
      }
      out += "\n</parameter>";
    }
  }
  out += extraKeys(params, ["type", "properties"]);
  out += "\n</parameters>";
  out += extraKeys(fn, ["type", "name", "description", "parameters"]);
  return out + "\n</function>";
}

/**
 * Qwen3-Coder's tools section, from the blank line after the system text to `</IMPORTANT>` (the template
 * then ends the system turn). Its example call is rendered by the format itself.
 */
export function renderCoderToolsSection(tools: readonly TemplateTool[], format: ToolCallFormat = qwen3coder): string {
  const body = format.body;
  if (body.kind !== "xml") fail("unknown_format", `format "${format.id}" has no XML body for the Qwen3-Coder tools section`);
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
  let out = "\n\n# Tools\n\nYou have access to the following functions:\n\n<tools>";
  for (const tool of tools) out += coderTool(tool);
  out +=
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n" +
    example +
    "\n\n<IMPORTANT>\nReminder:\n" +
    `- Function calls MUST follow the specified format: an inner ${body.functionOpen}...${body.tagEnd}` +
    `${body.functionClose} block must be nested within ${format.open.text}${format.close.text} XML tags\n` +
    "- Required parameters MUST be specified\n" +
    "- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n" +
    "- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n" +
    "</IMPORTANT>";
  return out;
}
