// Owns: the JSON `qtc parse` prints for one result, in the IR, OpenAI or Anthropic shape (the CLI contract).

import type { CallDiagnostic, ParseDiagnostics, ParseResult } from "../parse/types.js";
import { anthropicStopReason, toAnthropicContent, type AnthropicContentBlock, type AnthropicStopReason } from "./anthropic.js";
import { toOpenAIMessage, type OpenAIAssistantMessage } from "./openai.js";

export const PARSE_SHAPES = ["ir", "openai", "anthropic"] as const;
export type ParseShape = (typeof PARSE_SHAPES)[number];

/** The `qtc parse` IR: field names are a contract other tools read. */
export interface ParseReport {
  content: string;
  reasoning: string | null;
  /** `diagnostics`: what the parser tolerated in the call (absent when nothing). */
  calls: Array<{ id: string; name: string; arguments: Record<string, unknown>; diagnostics?: CallDiagnostic[] }>;
  errors: Array<{ reason: string; message: string; start: number; end: number }>;
  diagnostics: ParseDiagnostics;
}

export interface AnthropicMessageShape {
  role: "assistant";
  content: AnthropicContentBlock[];
  stop_reason: AnthropicStopReason;
}

export function toReport(result: ParseResult): ParseReport {
  return {
    content: result.content,
    reasoning: result.reasoning,
    calls: result.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.parsedArguments, ...(c.diagnostics ? { diagnostics: c.diagnostics } : {}) })),
    errors: result.errors.map((e) => ({ reason: e.reason, message: e.message, start: e.start, end: e.end })),
    diagnostics: result.diagnostics,
  };
}

/** The object `qtc parse --shape SHAPE` prints. */
export function toShape(result: ParseResult, shape: ParseShape, truncated = false): ParseReport | OpenAIAssistantMessage | AnthropicMessageShape {
  if (shape === "openai") return toOpenAIMessage(result);
  if (shape === "anthropic") return { role: "assistant", content: toAnthropicContent(result), stop_reason: anthropicStopReason(result, truncated) };
  return toReport(result);
}
