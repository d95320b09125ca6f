// Owns: parsing one `qtc parse --jsonl` input line (`{"text", "tools"?, "format"?, "truncated"?, "thinking"?}`)
// into a ParseResult, or a one-line reason why the line was refused.

import { QtcException } from "../errors.js";
import { FORMAT_IDS } from "../formats/index.js";
import type { FormatId } from "../formats/types.js";
import { compileValidators, type CompiledTools } from "../tools/validators.js";
import type { ThinkingStart } from "./options.js";
import { parse } from "./parser.js";
import type { ParseResult } from "./types.js";

export interface JsonlDefaults {
  /** Tools for lines that give none (`tools` absent or null). Default: undefined (names not checked). */
  tools?: CompiledTools;
  /** Default: "auto". */
  format?: FormatId | "auto";
  /** Default: "auto". */
  thinking?: ThinkingStart;
  /** For lines that do not say: the output was cut off at the token limit. Default: false. */
  truncated?: boolean;
}

const THINKING: readonly ThinkingStart[] = ["auto", "open", "closed"];

export type JsonlOutcome = { ok: true; value: ParseResult; truncated: boolean } | { ok: false; error: string };

/** Parse one input line. Never throws: a bad line becomes `{ok: false, error}`. */
export function parseJsonlLine(line: string, defaults: JsonlDefaults = {}): JsonlOutcome {
  let input: unknown;
  try {
    input = JSON.parse(line);
  } catch (e) {
    return { ok: false, error: `line is not JSON: ${(e as Error).message}` };
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) return { ok: false, error: 'line must be a JSON object {"text": …}' };
  const obj = input as Record<string, unknown>;
  if (typeof obj.text !== "string") return { ok: false, error: '"text" must be a string' };
  const format = obj.format ?? defaults.format ?? "auto";
  if (typeof format !== "string" || (format !== "auto" && !(FORMAT_IDS as string[]).includes(format))) {
    return { ok: false, error: `"format" must be one of auto, ${FORMAT_IDS.join(", ")}` };
  }
  const thinking = obj.thinking ?? defaults.thinking ?? "auto";
  if (!THINKING.includes(thinking as ThinkingStart)) return { ok: false, error: `"thinking" must be one of ${THINKING.join(", ")}` };
  if (obj.truncated !== undefined && typeof obj.truncated !== "boolean") return { ok: false, error: '"truncated" must be true or false' };
  if (obj.tools !== undefined && obj.tools !== null && !Array.isArray(obj.tools)) return { ok: false, error: '"tools" must be an array or null' };
  try {
    const tools = Array.isArray(obj.tools) ? compileValidators(obj.tools) : defaults.tools;
    const truncated = obj.truncated === undefined ? defaults.truncated === true : obj.truncated === true;
    const value = parse(obj.text, { tools, format: format as FormatId | "auto", thinking: thinking as ThinkingStart, truncated });
    return { ok: true, value, truncated };
  } catch (e) {
    if (e instanceof QtcException) return { ok: false, error: e.message };
    throw e;
  }
}
