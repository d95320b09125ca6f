// Owns: spelling past assistant tool calls in the prompt, driven by the format definition (src/formats).
// hermes follows Qwen3's template; qwen3coder follows Qwen3-Coder's template.

import { fail } from "../errors.js";
import type { ToolCallFormat } from "../formats/index.js";
import { pythonJsonDumps, pythonStr } from "./python-json.js";

/** One past call: the function name and its arguments (JSON text as OpenAI sends it, or the object). */
export interface PastCall {
  name: string;
  arguments: string | Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** qwen3coder needs the arguments as an object (its template iterates them); JSON text is decoded once. */
function argumentsObject(call: PastCall): Record<string, unknown> {
  if (typeof call.arguments !== "string") return call.arguments;
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    fail("invalid_messages", `arguments of the past call to "${call.name}" are not valid JSON`);
  }
  if (!isObject(parsed)) fail("invalid_messages", `arguments of the past call to "${call.name}" are not a JSON object`);
  return parsed;
}

/**
 * One call block as the format's template spells it, from the open tag to the close tag.
 * hermes: arguments given as a string are inserted verbatim (the template does that), objects go through
 * `tojson`. qwen3coder: string values raw, objects and arrays as JSON, other values as Python prints them.
 */
export function renderToolCall(call: PastCall, format: ToolCallFormat): string {
  const { open, close, framing, body } = format;
  if (body.kind === "json") {
    const args = typeof call.arguments === "string" ? call.arguments : pythonJsonDumps(call.arguments);
    const json =
      `{"${body.nameKey}"${body.keySep}"${call.name}"` + `${body.itemSep}"${body.argumentsKey}"${body.keySep}${args}}`;
    return open.text + framing + json + framing + close.text;
  }
  let out = open.text + framing + body.functionOpen + call.name + body.tagEnd + framing;
  for (const [key, value] of Object.entries(argumentsObject(call))) {
    const text =
      value !== null && typeof value === "object" ? pythonJsonDumps(value) : pythonStr(value);
    out += body.parameterOpen + key + body.tagEnd + framing + text + framing + body.parameterClose + framing;
  }
  return out + body.functionClose + framing + close.text;
}

/**
 * The calls of one assistant turn, with the separators the template puts before each block: hermes puts
 * one before every block except a first block that follows empty content; qwen3coder puts one before every
 * block.
 */
export function renderPastCalls(calls: readonly PastCall[], format: ToolCallFormat, contentBefore: boolean): string {
  let out = "";
  calls.forEach((call, i) => {
    const separate = format.body.kind === "xml" || i > 0 || contentBefore;
    if (separate) out += format.blockSeparator;
    out += renderToolCall(call, format);
  });
  return out;
}
