// Owns: the OpenAI chat-completions response shapes: the `chat.completion` object, and the stream encoder that
// turns runtime events into `chat.completion.chunk`s (`delta.tool_calls[index]`: id, type and name first, then
// argument fragments), the finish chunk (with the `qtc` object), the optional usage chunk and `[DONE]`.

import { createOpenAIDeltaTranslator, openAIFinishReason, toOpenAIMessage } from "../adapters/index.js";
import type { GenerateEvent, GenerateResult } from "../runtime/types.js";
import { qtcExtension, type ResponseMeta } from "./response-common.js";

/** `tool_calls` whenever the turn returned calls (each is complete and valid, even at the limit), else `length` or `stop`. */
const finishOf = (result: GenerateResult) => openAIFinishReason({ calls: result.toolCalls }, result.finishReason === "length");

function usageOf(result: GenerateResult) {
  const { promptTokens, completionTokens } = result.usage;
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** The `chat.completion` object for a finished turn. `content` is null when the turn only made calls. */
export function openAICompletion(result: GenerateResult, meta: ResponseMeta): Record<string, unknown> {
  const message = { ...toOpenAIMessage({ content: result.content, reasoning: result.reasoning, calls: result.toolCalls }), refusal: null };
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    system_fingerprint: null,
    choices: [{ index: 0, message, logprobs: chatLogprobs(result), finish_reason: finishOf(result) }],
    usage: usageOf(result),
    qtc: qtcExtension(result),
  };
}

/**
 * OpenAI's `choices[].logprobs` of a chat completion: `{content: [{token, logprob, bytes, top_logprobs}], refusal}`
 * when the request asked for logprobs (every token the turn output), else null.
 */
export function chatLogprobs(result: GenerateResult): Record<string, unknown> | null {
  if (!result.logprobs) return null;
  const content = result.logprobs.map((t) => ({ token: t.token, logprob: t.logprob, bytes: t.bytes, top_logprobs: t.top.map(({ token, logprob, bytes }) => ({ token, logprob, bytes })) }));
  return { content, refusal: null };
}

/** One SSE `data:` payload: a chunk object, or the literal `[DONE]`. */
export type OpenAIFrame = Record<string, unknown> | "[DONE]";

/**
 * Stateful: feed it every runtime event in order. The adapters' delta translator (the library's own) writes each
 * delta; this wraps them in chunks and adds the role chunk, the finish chunk, the usage chunk and `[DONE]`.
 */
export class OpenAIStreamEncoder {
  readonly #meta: ResponseMeta;
  readonly #includeUsage: boolean;
  readonly #deltas = createOpenAIDeltaTranslator();

  constructor(meta: ResponseMeta, includeUsage: boolean) {
    this.#meta = meta;
    this.#includeUsage = includeUsage;
  }

  /** The first chunk: the assistant role. */
  start(): OpenAIFrame[] {
    return [this.#chunk({ role: "assistant", content: "" })];
  }

  event(event: GenerateEvent): OpenAIFrame[] {
    if (event.type === "done") return this.#finish(event.result);
    return this.#deltas.translate(event).map((delta) => this.#chunk(delta as Record<string, unknown>));
  }

  #finish(result: GenerateResult): OpenAIFrame[] {
    // The finish chunk carries the `qtc` object a non-streamed body has (rejected calls, notices, `answer`).
    const finish = this.#chunk({}, finishOf(result));
    // Logprobs are read after the turn (one replay), so a stream carries them all in its finish chunk; SDKs that
    // gather a stream append each chunk's logprobs.content, which gives the same list as a whole body.
    if (result.logprobs) (finish.choices as Array<Record<string, unknown>>)[0]!.logprobs = chatLogprobs(result);
    const frames: OpenAIFrame[] = [{ ...finish, qtc: qtcExtension(result) }];
    if (this.#includeUsage) frames.push({ ...this.#base(), choices: [], usage: usageOf(result) });
    frames.push("[DONE]");
    return frames;
  }

  #base(): Record<string, unknown> {
    return { id: this.#meta.id, object: "chat.completion.chunk", created: this.#meta.created, model: this.#meta.model, system_fingerprint: null };
  }

  #chunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
    return {
      ...this.#base(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(this.#includeUsage ? { usage: null } : {}),
    };
  }
}
