// Owns: the one GenerateResult builder (the runtime, the replay model and the bench's reference row all build
// theirs here): its one finish-reason rule, the answer check, and the OpenAI and Anthropic views.

import { anthropicStopReason, toAnthropicContent, toOpenAIMessage, type AnthropicMessageShape, type OpenAIAssistantMessage } from "../adapters/index.js";
import type { OutputTokenLogprob } from "./token-logprobs.js";
import type { FormatId } from "../formats/types.js";
import type { ParseResult, ToolCall } from "../parse/types.js";
import type { ValueValidator } from "../tools/validators.js";
import type { ConstraintReport } from "../grammar/constraint-report.js";
import type { TextConstraint } from "../grammar/answer-constraint.js";
import { judgeText } from "./answer-request.js";
import type { AnswerCheck, FinishReason, GenerateResult, GenerationMode, GrammarUse } from "./types.js";

/** A finished turn, with views in the shapes OpenAI and Anthropic clients consume. */
export interface GenerateOutput extends GenerateResult {
  /** The assistant message in the OpenAI chat shape (`tool_calls` with `call_…` ids). */
  toOpenAI(): OpenAIAssistantMessage;
  /** The assistant message in the Anthropic shape (`tool_use` blocks with `toolu_…` ids, `stop_reason`). */
  toAnthropic(): AnthropicMessageShape;
}

/** How a turn ended and what it counted: what the engine knows, before the parser's judgement. */
export interface TurnCounts {
  /**
   * Why generation stopped: the end of the turn ("stop", or "tool_calls" when the engine saw calls close), the
   * token limit ("length") or the caller ("aborted").
   */
  finishReason: FinishReason;
  promptTokens: number;
  /** Leading prompt tokens the sequence already held (not evaluated again); engines that know it say so. */
  promptTokensReused?: number;
  completionTokens: number;
  forcedTokens: number;
  tokens: number[];
  timeToFirstTokenMs: number;
  decodeTokensPerSecond: number;
  grammarMs: number;
  totalMs: number;
  /** What the turn changed, as GenerateResult.notices words (`repetition_stopped`); absent when nothing. */
  notices?: string[];
  /** What qtc's grammar constrained in the turn (the last grammar it ran); absent when none ran or the engine does not say. */
  grammar?: ConstraintReport;
  /** The estimated bytes the turn's compiled grammar holds in the qtc engine (GrammarUse.bytes); absent otherwise. */
  grammarBytes?: number;
  /** GenerateResult.probabilityRemoved; absent unless measured. */
  probabilityRemoved?: number[];
  /** GenerateResult.logprobs; absent unless asked. */
  logprobs?: OutputTokenLogprob[];
}

/** No tokens, no time: the counts of a turn that was only replayed (or never ran). */
export function zeroCounts(finishReason: TurnCounts["finishReason"]): TurnCounts {
  return { finishReason, promptTokens: 0, completionTokens: 0, forcedTokens: 0, tokens: [], timeToFirstTokenMs: 0, decodeTokensPerSecond: 0, grammarMs: 0, totalMs: 0 };
}

/**
 * The one finish-reason rule: a turn that ended on its own finished with `tool_calls` when the parser accepted a
 * call, else with `stop`; one cut off at the limit or by the caller says so (calls or not).
 */
export function finishReasonOf(calls: readonly ToolCall[], ended: FinishReason): FinishReason {
  if (ended === "length" || ended === "aborted") return ended;
  return calls.length > 0 ? "tool_calls" : "stop";
}

export interface ResultParts {
  parsed: ParseResult;
  outcome: TurnCounts;
  raw: string;
  mode: GenerationMode;
  format: FormatId;
  /** The response schema's validator or the answer constraint, when the request has one. */
  judgeAnswer?: AnswerJudge;
  /**
   * Whether qtc's own grammar constrained the turn (mode "constrained" and qtc's runtime), so a rejected output is
   * a bug of qtc's and noted as one. Default: true in constrained mode.
   */
  qtcGrammar?: boolean;
}

/** What judges a text answer: a response schema's validator (JSON) or a regex, choice or grammar constraint. */
export type AnswerJudge = ValueValidator | TextConstraint;

/** The content judged as the answer (undefined when the turn answered with calls). */
function checkAnswer(parsed: ParseResult, truncated: boolean, judge: AnswerJudge): AnswerCheck | undefined {
  if (parsed.calls.length > 0 || parsed.errors.length > 0) return undefined;
  if (typeof judge !== "function") return judgeText(parsed.content, truncated, judge);
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

/** The result of a turn, as plain data (what the replay model and the reference row return). */
export function resultOf({ parsed, outcome, raw, mode, format, judgeAnswer, qtcGrammar = mode === "constrained" }: ResultParts): GenerateResult {
  const truncated = outcome.finishReason === "length";
  const diagnostics = { ...parsed.diagnostics, notes: [...parsed.diagnostics.notes] };
  if (qtcGrammar && parsed.errors.length > 0 && outcome.finishReason !== "aborted") {
    diagnostics.notes.push(
      `constrained output rejected by the parser (${parsed.errors.map((e) => e.reason).join(", ")}): a bug in the grammar or the runtime`,
    );
  }
  const result: GenerateResult = {
    content: parsed.content,
    reasoning: parsed.reasoning,
    toolCalls: parsed.calls,
    errors: parsed.errors,
    finishReason: finishReasonOf(parsed.calls, outcome.finishReason),
    usage: {
      promptTokens: outcome.promptTokens,
      completionTokens: outcome.completionTokens,
      forcedTokens: outcome.forcedTokens,
      ...(outcome.promptTokensReused === undefined ? {} : { promptTokensReused: outcome.promptTokensReused }),
    },
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
  if (outcome.notices && outcome.notices.length > 0) result.notices = [...outcome.notices];
  if (outcome.probabilityRemoved) result.probabilityRemoved = [...outcome.probabilityRemoved];
  if (outcome.logprobs) result.logprobs = outcome.logprobs;
  const use = grammarUse(outcome.grammar, mode, outcome.grammarBytes);
  if (use) result.grammar = use;
  const answer = judgeAnswer && checkAnswer(parsed, truncated, judgeAnswer);
  if (answer) result.answer = answer;
  // A caller's grammar may repeat without bound: its answer cut at the limit is the caller's, not a bug of qtc's.
  const callersCut = answer?.constraint === "grammar" && !answer.ok && answer.reason === "truncated";
  if (qtcGrammar && answer && !answer.ok && outcome.finishReason !== "aborted" && !callersCut) {
    diagnostics.notes.push(`constrained answer refused (${answer.reason}): a bug in the grammar or the runtime`);
  }
  return result;
}

/** The result of a runtime turn, with its OpenAI and Anthropic views. */
export function buildResult(parts: ResultParts): GenerateOutput {
  const { parsed, outcome } = parts;
  return Object.assign(resultOf(parts), {
    toOpenAI: () => toOpenAIMessage(parsed),
    toAnthropic: (): AnthropicMessageShape => ({
      role: "assistant",
      content: toAnthropicContent(parsed),
      stop_reason: anthropicStopReason(parsed, outcome.finishReason === "length"),
    }),
  });
}

/** What constrained a turn, as the result says it (see GenerateResult.grammar). */
export function grammarUse(report: ConstraintReport | undefined, mode: GenerationMode, bytes?: number): GrammarUse | undefined {
  if (report) {
    return {
      constrained: true,
      hash: report.grammarHash,
      policy: report.policy,
      exact: report.exact,
      validator: report.relaxed.map((s) => ({ ...(s.tool ? { tool: s.tool } : {}), keyword: s.keyword, path: s.path })),
      closedObjects: report.closedObjects,
      budgetSplit: report.budgetSplit,
      ...(bytes === undefined ? {} : { bytes }),
    };
  }
  return mode === "unconstrained" ? { constrained: false } : undefined;
}

/** One line for a response header: `none`, or the grammar's hash and what was left to the validator. */
export function grammarHeader(use: GrammarUse | undefined): string | undefined {
  if (!use) return undefined;
  if (!use.constrained) return "none";
  const left = use.validator ?? [];
  if (left.length === 0) return `${use.hash}; exact`;
  const sites = left.slice(0, 8).map((s) => `${s.tool ? s.tool + ":" : ""}${s.path}`).join(",");
  return `${use.hash}; validator=${sites}${left.length > 8 ? ` +${left.length - 8}` : ""}`;
}
