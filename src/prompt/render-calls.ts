// Owns: spelling past assistant tool calls in the prompt, driven by the format definition (src/formats).
// hermes follows Qwen3's template; qwen3coder follows Qwen3-Coder's template.

import type { PastCall, ToolCallFormat, ValuePrinter } from "../formats/index.js";
import { pythonJsonDumps, pythonStr } from "./python-json.js";
import { PromptBuilder } from "./segments.js";

export type { PastCall } from "../formats/index.js";

/** Values as the Qwen templates print them: `tojson` (Python json.dumps) and Python's str(). */
const TEMPLATE_PRINTER: ValuePrinter = Object.freeze({ json: (value: unknown) => pythonJsonDumps(value), str: (value: unknown) => pythonStr(value) });

/**
 * One call block as the format's template spells it, from the open tag to the close tag, written into `out`:
 * the tags and the JSON or XML scaffolding are markup, the name and the arguments are content.
 * hermes: arguments given as a string are inserted verbatim (the template does that), objects go through
 * `tojson`. qwen3coder: string values raw, objects and arrays as JSON, other values as Python prints them.
 */
export function writeToolCall(out: PromptBuilder, call: PastCall, format: ToolCallFormat): void {
  format.renderCall(out, call, TEMPLATE_PRINTER);
}

/** One call block as text (see {@link writeToolCall}). */
export function renderToolCall(call: PastCall, format: ToolCallFormat): string {
  const out = new PromptBuilder();
  writeToolCall(out, call, format);
  return out.text();
}

/**
 * The calls of one assistant turn, with the separators the template puts before each block: before every
 * block but a first one that follows empty content (hermes, qwen35), or before every block (`separateFirstCall`,
 * qwen3coder); a first block after content gets `firstCallSeparator` (qwen35: a blank line).
 */
export function writePastCalls(out: PromptBuilder, calls: readonly PastCall[], format: ToolCallFormat, contentBefore: boolean): void {
  calls.forEach((call, i) => {
    if (i === 0 && contentBefore) out.markup(format.firstCallSeparator);
    else if (i > 0 || format.separateFirstCall) out.markup(format.blockSeparator);
    writeToolCall(out, call, format);
  });
}

/** The calls of one assistant turn as text (see {@link writePastCalls}). */
export function renderPastCalls(calls: readonly PastCall[], format: ToolCallFormat, contentBefore: boolean): string {
  const out = new PromptBuilder();
  writePastCalls(out, calls, format, contentBefore);
  return out.text();
}
