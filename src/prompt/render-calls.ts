// Owns: spelling past assistant tool calls in the prompt, driven by the format definition (src/formats).
// hermes follows Qwen3's template; qwen3coder follows Qwen3-Coder's template.

import { fail } from "../errors.js";
import type { ToolCallFormat } from "../formats/index.js";
import { pythonJsonDumps, pythonStr } from "./python-json.js";
import { PromptBuilder } from "./segments.js";

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
 * One call block as the format's template spells it, from the open tag to the close tag, written into `out`:
 * the tags and the JSON or XML scaffolding are markup, the name and the arguments are content.
 * hermes: arguments given as a string are inserted verbatim (the template does that), objects go through
 * `tojson`. qwen3coder: string values raw, objects and arrays as JSON, other values as Python prints them.
 */
export function writeToolCall(out: PromptBuilder, call: PastCall, format: ToolCallFormat): void {
  const { open, close, framing, body } = format;
  if (body.kind === "json") {
    const args = typeof call.arguments === "string" ? call.arguments : pythonJsonDumps(call.arguments);
    out.markup(open.text + framing + `{"${body.nameKey}"${body.keySep}"`).content(call.name);
    out.markup(`"${body.itemSep}"${body.argumentsKey}"${body.keySep}`).content(args).markup("}" + framing + close.text);
    return;
  }
  out.markup(open.text + framing + body.functionOpen).content(call.name).markup(body.tagEnd + framing);
  for (const [key, value] of Object.entries(argumentsObject(call))) {
    const text = value !== null && typeof value === "object" ? pythonJsonDumps(value) : pythonStr(value);
    out.markup(body.parameterOpen).content(key).markup(body.tagEnd + framing);
    out.content(text).markup(framing + body.parameterClose + framing);
  }
  out.markup(body.functionClose + framing + close.text);
}

/** One call block as text (see {@link writeToolCall}). */
export function renderToolCall(call: PastCall, format: ToolCallFormat): string {
  const out = new PromptBuilder();
  writeToolCall(out, call, format);
  return out.text();
}

/**
 * The calls of one assistant turn, with the separators the template puts before each block: hermes puts
 * one before every block except a first block that follows empty content; qwen3coder puts one before every
 * block.
 */
export function writePastCalls(out: PromptBuilder, calls: readonly PastCall[], format: ToolCallFormat, contentBefore: boolean): void {
  calls.forEach((call, i) => {
    const separate = format.body.kind === "xml" || i > 0 || contentBefore;
    if (separate) out.markup(format.blockSeparator);
    writeToolCall(out, call, format);
  });
}

/** The calls of one assistant turn as text (see {@link writePastCalls}). */
export function renderPastCalls(calls: readonly PastCall[], format: ToolCallFormat, contentBefore: boolean): string {
  const out = new PromptBuilder();
  writePastCalls(out, calls, format, contentBefore);
  return out.text();
}
