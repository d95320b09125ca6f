// Owns: a turn's token budget against the context: a missing max_tokens is what the context leaves after the
// prompt; one above it is clamped (OpenAI routes, said in the response) or refused in Anthropic's own overflow
// wording, which Claude Code reads to retry with a smaller max_tokens; a prompt over the context is refused in
// each API's wording.

import type { GenerateRequest, PreparedRequest } from "../runtime/types.js";
import { ApiError, type ParamHints, toApiError } from "./api-error.js";
import { SERVER_DEFAULTS, type ServerRuntime } from "./defaults.js";

/** A request's own ask for output tokens. */
export interface BudgetAsk {
  /** Its max_tokens / max_output_tokens; undefined: none given. */
  asked: number | undefined;
  /** The request field it came in. */
  param: string;
  /**
   * Which API's clients read the answer to an ask above what the context leaves. "anthropic": refused with
   * Anthropic's `input length and \`max_tokens\` exceed context limit: A + B > C` (Claude Code parses it and
   * retries with a max_tokens that fits). "openai": clamped, and the response says so (Codex and qwen-code treat
   * `context_length_exceeded` as fatal; neither retries with a smaller max_tokens).
   */
  dialect: "anthropic" | "openai";
}

export interface FittedBudget {
  maxTokens: number;
  /** The prompt's tokens, when the runtime counted them. */
  promptTokens?: number;
  /** Said in the response when the ask was clamped. */
  notice?: string;
  /** The request as the count prepared it (its turn uses it: the prompt is not rendered or tokenized again). */
  prepared?: PreparedRequest;
}

export interface BudgetDefaults {
  /** The operator's max_tokens for a request that gives none (`--max-tokens`); undefined: what the context leaves. */
  defaultMaxTokens: number | undefined;
  maxTokensLimit: number;
  /** The operator's cap on every turn's output tokens (`--max-tokens-cap`); an ask above it is clamped, said in the response. */
  maxTokensCap?: number;
}

/**
 * Fit a request's ask to the context (see the module comment). Without a context size or a count, the ask stands
 * (and the prompt is counted only when `count` asks for it: a streamed Anthropic answer reports it first).
 */
export async function fitBudget(runtime: ServerRuntime, request: GenerateRequest, ask: BudgetAsk, defaults: BudgetDefaults, params: ParamHints, count = false): Promise<FittedBudget> {
  const cap = defaults.maxTokensCap;
  if (cap === undefined) return fitToContext(runtime, request, ask, defaults, params, count);
  const over = ask.asked !== undefined && ask.asked > cap;
  const fit = await fitToContext(runtime, request, over ? { ...ask, asked: cap } : ask, { ...defaults, maxTokensLimit: Math.min(defaults.maxTokensLimit, cap) }, params, count);
  if (!over) return fit;
  const capped = `${ask.param} ${ask.asked} is more than this server's cap of ${cap} (--max-tokens-cap); this turn may use ${fit.maxTokens}`;
  return { ...fit, notice: fit.notice ? `${capped}; ${fit.notice}` : capped };
}

async function fitToContext(runtime: ServerRuntime, request: GenerateRequest, ask: BudgetAsk, defaults: BudgetDefaults, params: ParamHints, count: boolean): Promise<FittedBudget> {
  const context = runtime.settings?.contextSize;
  const fallback = ask.asked ?? Math.min(defaults.defaultMaxTokens ?? SERVER_DEFAULTS.defaultMaxTokens, defaults.maxTokensLimit);
  const known = context !== undefined && context >= 1;
  if ((!known && !count) || request.prompt !== undefined) return { maxTokens: fallback };
  const prepared = await prepareRequest(runtime, request, params);
  const promptTokens = prepared ? prepared.promptTokens.length : await countTokens(runtime, request, params);
  const counted = { ...(promptTokens !== undefined ? { promptTokens } : {}), ...(prepared ? { prepared } : {}) };
  if (promptTokens === undefined || !known) return { maxTokens: fallback, ...counted };
  const left = context - promptTokens;
  if (left < 1) throw promptTooLong(ask.dialect, promptTokens, context);
  if (ask.asked === undefined) return { maxTokens: Math.min(defaults.defaultMaxTokens ?? left, left, defaults.maxTokensLimit), ...counted };
  if (ask.asked <= left) return { maxTokens: ask.asked, ...counted };
  if (ask.dialect === "anthropic") {
    // Anthropic's exact wording (param left out, so the message is not prefixed): Claude Code matches it.
    throw new ApiError(400, "context_length_exceeded", `input length and \`max_tokens\` exceed context limit: ${promptTokens} + ${ask.asked} > ${context}, decrease input length or \`max_tokens\` and try again`);
  }
  const notice = `${ask.param} ${ask.asked} is more than the ${left} tokens the context (${context}) leaves after the ${promptTokens}-token prompt; this turn may use ${left}`;
  return { maxTokens: left, ...counted, notice };
}

/** A prompt that alone fills the context, in each API's own words (Claude Code compacts on "prompt is too long"). */
function promptTooLong(dialect: BudgetAsk["dialect"], promptTokens: number, context: number): ApiError {
  if (dialect === "anthropic") return new ApiError(400, "context_length_exceeded", `prompt is too long: ${promptTokens} tokens > ${context} maximum`);
  return new ApiError(
    400,
    "context_length_exceeded",
    `This model's maximum context length is ${context} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
    "messages",
  );
}

/**
 * The prompt tokens of a request, when the runtime can count them (in slices that let the event loop run, where
 * the runtime can); its refusals are 400s like generate's.
 */
export async function countTokens(runtime: ServerRuntime, request: GenerateRequest, params: ParamHints): Promise<number | undefined> {
  if (!runtime.countTokens && !runtime.countTokensSliced) return undefined;
  try {
    return runtime.countTokensSliced ? await runtime.countTokensSliced(request) : runtime.countTokens!(request);
  } catch (e) {
    throw toApiError(e, params);
  }
}

/** The request prepared once by the runtime, when it can prepare (its refusals are 400s like generate's). */
async function prepareRequest(runtime: ServerRuntime, request: GenerateRequest, params: ParamHints): Promise<PreparedRequest | undefined> {
  if (!runtime.prepare) return undefined;
  try {
    return await runtime.prepare(request);
  } catch (e) {
    throw toApiError(e, params);
  }
}
