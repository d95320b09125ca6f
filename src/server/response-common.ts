// Owns: what both APIs' responses share: response ids and the `qtc` extension object (mode, format, rejected
// calls, timings, notices) added to non-streamed responses and to the last chunk or event of a stream.

import { randomBytes } from "node:crypto";
import type { GenerateResult } from "../runtime/types.js";

export interface ResponseMeta {
  /** `chatcmpl-…` or `msg_…`. */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The served model's id. */
  model: string;
}

export function newMeta(prefix: "chatcmpl-" | "msg_", model: string): ResponseMeta {
  return { id: `${prefix}${randomBytes(12).toString("hex")}`, created: Math.floor(Date.now() / 1000), model };
}

/** Non-standard extra field (clients ignore unknown fields): what qtc did and what it rejected. */
export function qtcExtension(result: GenerateResult): Record<string, unknown> {
  return {
    mode: result.mode,
    format: result.format,
    forced_tokens: result.usage.forcedTokens,
    rejected_calls: result.errors.map((e) => ({ reason: e.reason, message: e.message, ...(e.name ? { name: e.name } : {}) })),
    timings: result.timings,
    ...answerExtension(result),
    ...(result.notices && result.notices.length > 0 ? { notices: result.notices } : {}),
  };
}

/**
 * `answer` of the `qtc` extension, when the request constrained the answer and the turn answered in text: what
 * constrained it (`regex`, `choice`, `grammar`, `json_schema`), whether the answer holds, or why not, and how it
 * `ended`: `stop` (the model ended it), `length` (the token limit) or `stop_sequence` (a stop sequence cut it).
 */
export function answerExtension(result: Pick<GenerateResult, "answer" | "finishReason"> & { stopSequence?: string }): { answer?: Record<string, unknown> } {
  const a = result.answer;
  if (!a) return {};
  const by = a.constraint === undefined || a.constraint === "jsonSchema" ? "json_schema" : a.constraint;
  const ended = result.stopSequence !== undefined ? "stop_sequence" : result.finishReason === "length" ? "length" : "stop";
  return { answer: a.ok ? { ok: true, constraint: by, ended } : { ok: false, constraint: by, ended, reason: a.reason, message: a.message } };
}
