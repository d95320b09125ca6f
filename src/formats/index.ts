// Owns: the format registry: lookup by id and detection from a chat template.

import { fail } from "../errors.js";
import { hermes } from "./hermes.js";
import { qwen3coder } from "./qwen3coder.js";
import type { FormatId, ToolCallFormat } from "./types.js";

export type { FormatId, JsonBody, SpecialTag, ToolCallFormat, XmlBody } from "./types.js";
export { hermes } from "./hermes.js";
export { qwen3coder } from "./qwen3coder.js";
export { QWEN3_TOKENS, QWEN3_VOCAB_SIZE } from "./qwen3-tokens.js";

export const FORMATS: Readonly<Record<FormatId, ToolCallFormat>> = Object.freeze({ hermes, qwen3coder });
export const FORMAT_IDS = Object.keys(FORMATS) as FormatId[];

/** The format with this id; throws a QtcException listing the supported ids otherwise. */
export function getFormat(id: string): ToolCallFormat {
  const format = (FORMATS as Record<string, ToolCallFormat | undefined>)[id];
  if (!format) fail("unknown_format", `unknown format "${id}"; supported: ${FORMAT_IDS.join(", ")}`);
  return format;
}

/**
 * The format a chat template renders tool calls in, like llama.cpp's detection: Qwen3-Coder templates
 * spell `<function=` and `<parameter=`; Qwen3/Qwen2.5 templates render `<tool_call>` around JSON.
 * Returns undefined when the template shows no tool-call format qtc knows.
 */
export function detectFormat(chatTemplate: string | undefined): ToolCallFormat | undefined {
  if (!chatTemplate) return undefined;
  const xml = qwen3coder.body.kind === "xml" ? qwen3coder.body : undefined;
  if (xml && chatTemplate.includes(xml.functionOpen) && chatTemplate.includes(xml.parameterOpen)) return qwen3coder;
  if (chatTemplate.includes(hermes.open.text)) return hermes;
  return undefined;
}
