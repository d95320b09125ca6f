// Owns: OpenAI's legacy text completions (`POST /v1/completions`): a raw prompt in, the model's raw text out (calls
// and reasoning included as the model wrote them, since the client parses the text itself), whole or streamed.

import { randomBytes } from "node:crypto";
import type { GenerateEvent, GenerateRequest, GenerateResult } from "../runtime/types.js";
import { badRequest, type ParamHints, unsupported } from "./api-error.js";
import { checkMaxTokens, isObject, type Obj, type SchemaCheck, seedOf } from "./convert-util.js";
import { constraintOfOpenAIBody } from "./constraint-fields.js";
import { answerExtension } from "./response-common.js";
import type { ResolvedServerOptions } from "./defaults.js";
import type { BudgetAsk } from "./budget.js";
import type { SseFrame } from "./sse.js";
import { readStopSequences } from "./stop-sequences.js";
import { choicesOf } from "./choices.js";

/** `max_tokens` when a completions request gives none: 16, as OpenAI's legacy endpoint has it. */
export const COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

export interface CompletionsPlan {
  request: GenerateRequest;
  stream: boolean;
  includeUsage: boolean;
  params: ParamHints;
  stop: string[];
  /** Only the operator's cap changes a raw prompt's ask (it is not fitted to the context: the client owns the text). */
  budget: BudgetAsk;
  /** `n`: choices to generate (1 when streamed). */
  choices: number;
}

type Ctx = Pick<ResolvedServerOptions, "mode" | "maxTokensLimit"> & Partial<Pick<ResolvedServerOptions, "maxTokensCap">> & SchemaCheck;

/** Convert a body that passed COMPLETIONS_BODY; throws ApiError (400) for what qtc cannot honour. */
export function completionsToGenerate(body: Obj, ctx: Ctx): CompletionsPlan {
  refuseUnsupported(body);
  const prompt = promptOf(body.prompt);
  const request: GenerateRequest = {
    messages: [],
    prompt,
    mode: ctx.mode,
    maxTokens: checkMaxTokens((body.max_tokens ?? COMPLETIONS_DEFAULT_MAX_TOKENS) as number, ctx, "max_tokens"),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === "number" ? { topP: body.top_p } : {}),
    ...(seedOf(body.seed) !== undefined ? { seed: seedOf(body.seed) } : {}),
    ...(typeof body.logprobs === "number" ? { logprobs: body.logprobs } : {}),
  };
  const stream = body.stream === true;
  if (body.stream_options != null && !stream) throw badRequest("stream_options is only allowed with stream: true.", "stream_options");
  const includeUsage = stream && isObject(body.stream_options) && body.stream_options.include_usage === true;
  const budget: BudgetAsk = { asked: request.maxTokens, param: "max_tokens", dialect: "openai" };
  const constrained = constraintOfOpenAIBody(body, ctx);
  if (constrained) request.constraint = constrained.constraint;
  const params: ParamHints = { maxTokens: "max_tokens", ...(constrained ? { responseSchema: constrained.param } : {}) };
  return { request, stream, includeUsage, params, stop: readStopSequences(body.stop, "stop", true), budget, choices: choicesOf(body.n, stream) };
}

function refuseUnsupported(body: Obj): void {
  const set = (v: unknown) => v !== undefined && v !== null;
  if (set(body.best_of) && body.best_of !== 1) throw unsupported("best_of", "best_of must be 1; send several requests instead.");
  if (body.echo === true) throw unsupported("echo", "echo is not supported; prepend the prompt yourself.");
  if (set(body.suffix) && body.suffix !== "") throw unsupported("suffix", "suffix (insertion) is not supported; remove suffix.");
  if (isObject(body.logit_bias) && Object.keys(body.logit_bias).length) throw unsupported("logit_bias", "logit_bias is not supported; remove logit_bias.");
  for (const key of ["presence_penalty", "frequency_penalty"]) {
    if (set(body[key]) && body[key] !== 0) throw unsupported(key, `${key} is not supported; remove it or send 0.`);
  }
}

/** One prompt: a string, or an array holding one string (token-id prompts and batches are refused). */
function promptOf(raw: unknown): string {
  if (typeof raw === "string") return raw;
  if (Array.isArray(raw) && raw.length === 1 && typeof raw[0] === "string") return raw[0];
  if (Array.isArray(raw) && raw.length > 1 && raw.every((p) => typeof p === "string")) {
    throw unsupported("prompt", "Only one prompt per request is supported; send one request per prompt.");
  }
  throw badRequest("prompt must be a string (token-id prompts are not supported).", "prompt");
}

/**
 * The runtime's events as the model's raw text: calls and rejected blocks as the text they were written as, and
 * reasoning between `<think>` tags, so a client that parses the text itself sees what the model wrote.
 */
export async function* asRawText(events: AsyncIterable<GenerateEvent>): AsyncGenerator<GenerateEvent, void, void> {
  let thinking = false;
  let text = "";
  const out = (piece: string): GenerateEvent => {
    text += piece;
    return { type: "text-delta", text: piece };
  };
  for await (const event of events) {
    if (event.type === "reasoning-delta") {
      if (!event.text) continue;
      yield out(thinking ? event.text : `<think>${event.text}`);
      thinking = true;
      continue;
    }
    if (thinking && event.type !== "tool-call-start" && event.type !== "tool-call-delta") {
      yield out("</think>");
      thinking = false;
    }
    if (event.type === "text-delta" && event.text) yield out(event.text);
    else if (event.type === "tool-call") yield out(event.call.raw);
    else if (event.type === "error") yield out(event.error.raw);
    else if (event.type === "done") yield { type: "done", result: { ...event.result, content: text } };
  }
}

interface CompletionsMeta {
  id: string;
  created: number;
  model: string;
}

export function newCompletionsMeta(model: string): CompletionsMeta {
  return { id: `cmpl-${randomBytes(12).toString("hex")}`, created: Math.floor(Date.now() / 1000), model };
}

const finishOf = (result: GenerateResult) => (result.finishReason === "length" ? "length" : "stop");

function usageOf(result: GenerateResult) {
  const { promptTokens, completionTokens } = result.usage;
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

function base(meta: CompletionsMeta) {
  return { id: meta.id, object: "text_completion", created: meta.created, model: meta.model, system_fingerprint: null };
}

/** The `text_completion` object of a finished turn (its content is the raw text, see asRawText). */
export function completionsResponse(result: GenerateResult, meta: CompletionsMeta): Record<string, unknown> {
  return { ...base(meta), choices: [{ text: result.content, index: 0, logprobs: completionLogprobs(result), finish_reason: finishOf(result) }], usage: usageOf(result), ...(result.answer ? { qtc: answerExtension(result) } : {}) };
}

/**
 * The legacy `logprobs` object, `{tokens, token_logprobs, top_logprobs, text_offset}`, when the request gave
 * `logprobs: N` (top_logprobs: one `{token: logprob}` object per token, its N most likely), else null. The offsets
 * count UTF-16 units of the tokens' texts from the start of the answer.
 */
function completionLogprobs(result: GenerateResult): Record<string, unknown> | null {
  if (!result.logprobs) return null;
  const offsets: number[] = [];
  let at = 0;
  for (const t of result.logprobs) {
    offsets.push(at);
    at += t.token.length;
  }
  return {
    tokens: result.logprobs.map((t) => t.token),
    token_logprobs: result.logprobs.map((t) => t.logprob),
    top_logprobs: result.logprobs.map((t) => Object.fromEntries(t.top.map((a) => [a.token, a.logprob]))),
    text_offset: offsets,
  };
}

/** Stream chunks: one per text delta, a finish chunk, the optional usage chunk, `[DONE]`. */
export function completionsStream(meta: CompletionsMeta, includeUsage: boolean): { start(): SseFrame[]; event(event: GenerateEvent): SseFrame[] } {
  const chunk = (text: string, finish: string | null) => ({
    data: { ...base(meta), choices: [{ text, index: 0, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) },
  });
  return {
    start: () => [],
    event: (event) => {
      if (event.type === "text-delta") return event.text ? [chunk(event.text, null)] : [];
      if (event.type !== "done") return [];
      const finish = chunk("", finishOf(event.result)).data;
      if (event.result.logprobs) finish.choices[0]!.logprobs = completionLogprobs(event.result) as null;
      const frames: SseFrame[] = [{ data: { ...finish, ...(event.result.answer ? { qtc: answerExtension(event.result) } : {}) } }];
      if (includeUsage) frames.push({ data: { ...base(meta), choices: [], usage: usageOf(event.result) } });
      frames.push({ data: "[DONE]" });
      return frames;
    },
  };
}
