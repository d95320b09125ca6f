// Owns: building a GenerateResult from the parser's result and the turn's counts, with its OpenAI and
// Anthropic views, and translating parser events into the runtime's stream events.

import { anthropicStopReason, toAnthropicContent, toOpenAIMessage, type AnthropicMessageShape, type OpenAIAssistantMessage } from "../adapters/index.js";
import type { FormatId } from "../formats/types.js";
import type { ParseEvent, ParseResult } from "../parse/types.js";
import type { TurnOutcome } from "./turn.js";
import type { ValueValidator } from "../tools/validators.js";
import type { AnswerCheck, GenerateEvent, GenerateResult, GenerationMode } from "./types.js";

/** A finished turn, with views in the shapes OpenAI and Anthropic clients consume. */
export interface GenerateOutput extends GenerateResult {
  /** The assistant message in the OpenAI chat shape (`tool_calls` with `call_…` ids). */
  toOpenAI(): OpenAIAssistantMessage;
  /** The assistant message in the Anthropic shape (`tool_use` blocks with `toolu_…` ids, `stop_reason`). */
  toAnthropic(): AnthropicMessageShape;
}

export interface ResultParts {
  parsed: ParseResult;
  outcome: TurnOutcome;
  raw: string;
  mode: GenerationMode;
  format: FormatId;
  /** The response schema's validator, when the request has one. */
  judgeAnswer?: ValueValidator;
}

/** The content judged as the JSON answer (undefined when the turn answered with calls). */
function checkAnswer(parsed: ParseResult, truncated: boolean, judge: NonNullable<ResultParts["judgeAnswer"]>): AnswerCheck | undefined {
  if (parsed.calls.length > 0 || parsed.errors.length > 0) return undefined;
  const text = parsed.content.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (truncated) return { ok: false, reason: "truncated", message: "the answer was cut off at the token limit before its JSON was complete" };
    return { ok: false, reason: "invalid_json", message: `the answer is not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  const errors = judge(value);
  if (!errors) return { ok: true, value };
  const where = errors.map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}`).join("; ");
  return { ok: false, reason: "schema", message: `the answer does not fit the response schema: ${where}`, errors };
}

export function buildResult({ parsed, outcome, raw, mode, format, judgeAnswer }: ResultParts): GenerateOutput {
  const truncated = outcome.finishReason === "length";
  const finishReason = parsed.calls.length > 0 && outcome.finishReason === "stop" ? "tool_calls" : outcome.finishReason;
  const diagnostics = { ...parsed.diagnostics, notes: [...parsed.diagnostics.notes] };
  if (mode === "constrained" && parsed.errors.length > 0 && outcome.finishReason !== "aborted") {
    diagnostics.notes.push(
      `constrained output rejected by the parser (${parsed.errors.map((e) => e.reason).join(", ")}): a bug in the grammar or the runtime`,
    );
  }
  const result: GenerateResult = {
    content: parsed.content,
    reasoning: parsed.reasoning,
    toolCalls: parsed.calls,
    errors: parsed.errors,
    finishReason: finishReason === "tool_calls" && parsed.calls.length === 0 ? "stop" : finishReason,
    usage: { promptTokens: outcome.promptTokens, completionTokens: outcome.completionTokens, forcedTokens: outcome.forcedTokens },
    timings: {
      timeToFirstTokenMs: outcome.timeToFirstTokenMs,
      decodeTokensPerSecond: outcome.decodeTokensPerSecond,
      grammarMs: outcome.grammarMs,
      totalMs: outcome.totalMs,
    },
    diagnostics,
    raw,
    tokens: outcome.tokens,
    mode,
    format,
  };
  const answer = judgeAnswer && checkAnswer(parsed, truncated, judgeAnswer);
  if (answer) result.answer = answer;
  if (mode === "constrained" && answer && !answer.ok && outcome.finishReason !== "aborted") {
    diagnostics.notes.push(`constrained answer refused (${answer.reason}): a bug in the grammar or the runtime`);
  }
  return Object.assign(result, {
    toOpenAI: () => toOpenAIMessage(parsed),
    toAnthropic: (): AnthropicMessageShape => ({
      role: "assistant",
      content: toAnthropicContent(parsed),
      stop_reason: anthropicStopReason(parsed, truncated),
    }),
  });
}

/** Stream events for one parser event (a finished call becomes start, one arguments delta, complete). */
export function toGenerateEvents(event: ParseEvent, callIndex: () => number): GenerateEvent[] {
  switch (event.type) {
    case "text-delta":
      return event.text ? [{ type: "text-delta", text: event.text }] : [];
    case "reasoning-delta":
      return event.text ? [{ type: "reasoning-delta", text: event.text }] : [];
    case "call": {
      const index = callIndex();
      const { call } = event;
      return [
        { type: "tool-call-start", index, id: call.id, name: call.name },
        { type: "tool-call-delta", index, id: call.id, argumentsDelta: call.arguments },
        { type: "tool-call", index, call },
      ];
    }
    case "call-rejected":
      return [{ type: "error", error: event.error }];
    case "finish":
      return [];
  }
}
