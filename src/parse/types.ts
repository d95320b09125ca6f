// Owns: the parser's output types: the internal ToolCall, a rejected block, diagnostics and stream events.

import type { CallErrorCode } from "../errors.js";
import type { FormatId } from "../formats/types.js";

/** A valid, schema-checked tool call (the internal representation adapters translate). */
export interface ToolCall {
  /** Unique per call (random, never a hash of name and arguments). Adapters may re-prefix it. */
  id: string;
  name: string;
  /** Arguments as canonical JSON (JSON.stringify of `parsedArguments`). */
  arguments: string;
  parsedArguments: Record<string, unknown>;
  format: FormatId;
  /** The exact text of the block, tags included. */
  raw: string;
  /** Offsets of `raw` in the assistant output (UTF-16 code units, like String indices). */
  start: number;
  end: number;
  /** What the parser tolerated or repaired to read this call (absent when nothing). */
  diagnostics?: CallDiagnostic[];
}

/**
 * Stable codes of what the parser tolerated in an accepted call (docs/parser.md): `surplus_closer` (a close tag
 * more than the call opened, ignored), `drifted_marker` (a close tag spelled otherwise, such as `</parameter1>`,
 * read as the tag it stands for), `call_in_reasoning` (a complete call ending an unclosed think block).
 */
export type CallDiagnosticCode = "surplus_closer" | "drifted_marker" | "call_in_reasoning";

/** One thing the parser tolerated in a call; `message` says what, for the user. */
export interface CallDiagnostic {
  code: CallDiagnosticCode;
  message: string;
}

/** A block that was detected but rejected. `message` is written for the model: it goes back as the call's result. */
export interface CallError {
  reason: CallErrorCode;
  message: string;
  /** The function name when one could be read. */
  name?: string;
  raw: string;
  start: number;
  end: number;
}

export interface ParseDiagnostics {
  /** Blocks that looked like calls (opened with the format's open tag, or a bare `<function=` for qwen3coder). */
  detected: number;
  /** Blocks that passed every check. */
  accepted: number;
  /** Rejected blocks by reason. */
  rejected: Partial<Record<CallErrorCode, number>>;
  /** Calls emitted to the consumer (equals accepted once the stream has ended). */
  emitted: number;
  /** Notes that are not errors, e.g. that a bare qwen3coder function block was read without its wrapper tags. */
  notes: string[];
}

export interface ParseResult {
  /** Assistant text with call blocks removed. */
  content: string;
  /** Text inside `<think>…</think>` (or before a lone `</think>`); null when there was none. */
  reasoning: string | null;
  calls: ToolCall[];
  errors: CallError[];
  diagnostics: ParseDiagnostics;
}

/** Streaming events; `parse(text)` is `feed(text)` + `end()` over the same events. */
export type ParseEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "call"; call: ToolCall }
  | { type: "call-rejected"; error: CallError }
  | { type: "finish"; result: ParseResult };
