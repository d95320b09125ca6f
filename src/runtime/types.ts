// Owns: the request, result and stream-event types of the runtime (the library's main API surface).

import type { OutputTokenLogprob } from "./token-logprobs.js";
import type { StreamEvent } from "../adapters/events.js";
import type { FormatId, ToolCallFormat } from "../formats/types.js";
import type { CallError, ParseDiagnostics, ToolCall } from "../parse/types.js";
import type { ChatMessage } from "../prompt/types.js";
import type { TemplateEffort } from "../prompt/render-qwen38.js";
import type { JsonSchema, ToolChoice, ToolInput } from "../tools/types.js";
import type { SchemaError } from "../tools/validators.js";
import type { AnswerRefusal } from "../errors.js";
import type { AnswerConstraint, ConstraintKind, TextConstraint } from "../grammar/answer-constraint.js";
import type { PromptSegment } from "../prompt/segments.js";

export type GenerationMode = "constrained" | "unconstrained";

export interface GenerateRequest {
  messages: ChatMessage[];
  /**
   * A raw prompt used instead of rendering `messages` (OpenAI's legacy `/v1/completions`): tokenized as given,
   * template markers such as `<|im_start|>` included, since the caller owns the whole prompt. Default: none.
   */
  prompt?: string;
  /** Tools in OpenAI, Anthropic or bare shape. Default: none. */
  tools?: ToolInput[];
  /** Default: "auto". */
  toolChoice?: ToolChoice;
  /** Default: "constrained". */
  mode?: GenerationMode;
  /** Allow several calls in one turn. Default: true. */
  parallel?: boolean;
  /** Token budget for the whole turn (thinking, text and calls, sampled and forced). Default: 512. */
  maxTokens?: number;
  /** Default: 0.7. */
  temperature?: number;
  /** Default: 0.8. */
  topP?: number;
  /** Default: 20. */
  topK?: number;
  /** Sampling seed; the same seed and request give the same output. Default: random. */
  seed?: number;
  /** Let the model think in `<think>` first. Default: false. */
  thinking?: boolean;
  /** Tokens the `<think>` phase may use before `</think>` is forced. Default: half of maxTokens. */
  thinkingBudget?: number;
  /**
   * The chat template's reasoning level, for templates that have levels (Qwen3.8: xhigh, medium, low; written into
   * the prompt only while `thinking` is on). Templates without levels ignore it. Default: the template's (xhigh).
   */
  reasoningEffort?: TemplateEffort;
  /**
   * The template's `preserve_thinking`, for templates that read it (Qwen3.6, Qwen3.8): true keeps earlier turns'
   * `reasoning_content` in the prompt, false drops what came before the last user query. Default: the template's
   * (Qwen3.8: true; Qwen3.6: false).
   */
  preserveThinking?: boolean;
  /** Override the runtime's format: a registered id or a format object. Default: the runtime's. */
  format?: FormatId | ToolCallFormat;
  /** Evaluate forced text in one batch (constrained mode). Default: true. */
  jumpForward?: boolean;
  /**
   * The repetition guard: a span of 1 to 3 tokens written this many times back to back (a phrase or row of 4 to 32
   * tokens: a third as many) is a loop. Under the grammar the value and the call are closed validly; in free text
   * the turn ends; thinking ends as at its budget. The result's `notices` then holds `repetition_stopped`.
   * `false` turns it off. Default: 72 (see REPEAT_DEFAULTS for how it was chosen).
   */
  repeatGuard?: number | false;
  /**
   * Added to the logits of these token ids, like OpenAI's `logit_bias` (-100 to 100; -100 bans a token, 100
   * all but forces it where the grammar allows it). qtc's own bans win (e.g. the call open tag under tool choice
   * `none`). Default: none.
   */
  logitBias?: Record<number, number>;
  /**
   * The answer, when it is not tool calls, is JSON that fits this schema (OpenAI `response_format`). In
   * constrained mode the grammar holds it from the first answer token: with tool choice "none" (or no tools) the
   * answer is that JSON alone, under "auto" that JSON or calls; required calls leave it no part. In either mode
   * the result's `answer` says whether the content fits. Default: none (free text).
   */
  responseSchema?: JsonSchema | boolean;
  /**
   * What the text answer must be, when it is not tool calls: `{regex}` (the whole answer matches; ECMAScript
   * syntax), `{choice}` (exactly one of the strings), `{grammar}` (GBNF, root rule `root`) or `{jsonSchema}` (the
   * same as `responseSchema`; give one of the two). Constrained, the grammar holds the answer from its first token
   * (under "auto": the answer or calls, nothing else; under "none": the answer). In either mode the result's
   * `answer` judges the content against it. Default: none (free text).
   */
  constraint?: AnswerConstraint;
  /**
   * Report each output token's log-probability with this many most likely alternatives (0 to 20) in the result's
   * `logprobs`: the model's own distribution (temperature 1, before the constraint, biases and top-k/top-p), read by
   * one replay of the turn after it. Default: none (not computed).
   */
  logprobs?: number;
  signal?: AbortSignal;
  /**
   * What the runtime's `prepare()` returned for this request (a server's budget check prepares it to count the
   * prompt): the turn evaluates its tokens and constraint instead of rendering, tokenizing and reading them again.
   * Used only when its messages, tools, prompt, constraint and template options are this request's own (the same
   * objects); otherwise the turn prepares the request itself. Default: none (the turn prepares it).
   */
  prepared?: PreparedRequest;
}

/** A request prepared once: its prompt rendered and tokenized, its text constraint read (see `Runtime.prepare`). */
export interface PreparedRequest {
  /** The rendered prompt: template markup and content. */
  readonly segments: readonly PromptSegment[];
  /** The prompt's tokens, as the turn evaluates them. */
  readonly promptTokens: readonly number[];
  /** The request's regex, choice or grammar constraint, checked (undefined: none, or a JSON schema). */
  readonly answerConstraint: TextConstraint | undefined;
}

export type FinishReason = "stop" | "tool_calls" | "length" | "aborted";

export interface GenerateUsage {
  promptTokens: number;
  /** Every token the turn added to the context, sampled and forced. */
  completionTokens: number;
  /** Tokens fed by jump-forward or forced tags instead of sampled. */
  forcedTokens: number;
  /**
   * Leading prompt tokens whose KV cache an earlier request left in the sequence, so they were not evaluated
   * again (evaluated = promptTokens − promptTokensReused). Set by the local runtime only.
   */
  promptTokensReused?: number;
}

export interface GenerateTimings {
  timeToFirstTokenMs: number;
  /** completionTokens over the time after the prompt was evaluated. */
  decodeTokensPerSecond: number;
  /** Time spent in grammar work (compile, masks, state updates). */
  grammarMs: number;
  totalMs: number;
}

export interface GenerateResult {
  content: string;
  reasoning: string | null;
  toolCalls: ToolCall[];
  errors: CallError[];
  finishReason: FinishReason;
  usage: GenerateUsage;
  timings: GenerateTimings;
  diagnostics: ParseDiagnostics;
  /** The exact text the model produced, special tags included. */
  raw: string;
  /** Token ids the turn added, in order (sampled and forced; the final end-of-generation token is not included). */
  tokens: number[];
  mode: GenerationMode;
  format: FormatId;
  /** With `responseSchema` or `constraint`, when the turn answered in text rather than calls: the content judged against it. */
  answer?: AnswerCheck;
  /**
   * Whether a grammar constrained the turn: qtc's (its stable hash, and the keywords left to the validator, which
   * judged every call), or none (unconstrained). Absent when the engine does not say.
   */
  grammar?: GrammarUse;
  /**
   * What the runtime changed in the turn, as stable words (`repetition_stopped`: the repetition guard closed a
   * looping value or ended looping text). Absent when there is nothing to say.
   */
  notices?: string[];
  /**
   * Per token sampled under the grammar (up to 16 a turn, evenly spaced: MEASURED_STEPS_PER_TURN), in order: the
   * probability the constraint removed there, 0 to 1 (the mass
   * of the tokens its mask banned, under the model's own distribution at the request's temperature; with
   * temperature 0, 1 where the most likely token was banned). Absent unless the runtime measures it
   * (RuntimeOptions.measureProbabilityRemoved).
   */
  probabilityRemoved?: number[];
  /**
   * With `logprobs` asked: every token the turn output (sampled and forced, markup included), in order, with its
   * log-probability and the most likely alternatives at its position (see GenerateRequest.logprobs). Absent
   * otherwise, and from engines that cannot read distributions.
   */
  logprobs?: OutputTokenLogprob[];
}

/** What constrained a turn (see GenerateResult.grammar). */
export interface GrammarUse {
  constrained: boolean;
  /** First 16 hex digits of the GBNF's SHA-256. */
  hash?: string;
  policy?: "strict" | "validate";
  /** The grammar held every constraining keyword (nothing was left to the validator). */
  exact?: boolean;
  /** Keywords the grammar did not hold; the validator judged them. */
  validator?: { tool?: string; keyword: string; path: string }[];
  /** Tool-argument objects without `additionalProperties` that the grammar closed (extraMembers "closed"). */
  closedObjects?: number;
  /** How the grammar split the budget: "shared" (closed in time by the budget guard) or "worst-case" (engines without the guard). */
  budgetSplit?: "shared" | "worst-case";
  /**
   * The compiled grammar's footprint in the qtc engine at the end of the turn, in estimated bytes (its program and
   * the parser states and masks it cached; what the engine's byte-bounded grammar cache weighs it by).
   */
  bytes?: number;
}

/**
 * An answer judged against the response schema or constraint: its value (the parsed JSON; the text for a regex,
 * choice or grammar), or why it was refused (errors as data). `constraint` names the regex, choice or grammar constraint that judged
 * it (absent for a JSON answer).
 */
export type AnswerCheck = (
  | { ok: true; value: unknown }
  | { ok: false; reason: AnswerRefusal; message: string; errors?: readonly SchemaError[] }
) & { constraint?: ConstraintKind };

/**
 * Stream events: the adapters' one union (StreamEvent), ending with `done` and the result `generate` would return.
 * Concatenated text deltas equal `content`; each call streams as start, arguments deltas, then the whole call.
 */
export type GenerateEvent = StreamEvent<GenerateResult>;
