// Owns: the OpenAI chat-completions response shapes: the `chat.completion` object, and the stream encoder that
// turns runtime events into `chat.completion.chunk`s (`delta.tool_calls[index]`: id, type and name first, then
// argument fragments), the finish chunk, the optional usage chunk and `[DONE]`.

import { ADAPTER_DEFAULTS, fragments, openAIFinishReason, openAIToolCallId, toOpenAIMessage } from "../adapters/index.js";
import type { ToolCall } from "../parse/types.js";
import type { GenerateEvent, GenerateResult } from "../runtime/types.js";
import { qtcExtension, type ResponseMeta } from "./response-common.js";

/** `tool_calls` whenever the turn returned calls (each is complete and valid, even at the limit), else `length` or `stop`. */
const finishOf = (result: GenerateResult) => openAIFinishReason({ calls: result.toolCalls }, result.finishReason === "length");

/** The `call_…` id of a runtime call id (the adapters' spelling, so library and server ids agree). */
const callId = (id: string) => openAIToolCallId({ id } as ToolCall);

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
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(result) }],
    usage: usageOf(result),
    qtc: qtcExtension(result),
  };
}

/** One SSE `data:` payload: a chunk object, or the literal `[DONE]`. */
export type OpenAIFrame = Record<string, unknown> | "[DONE]";

interface OpenCall {
  /** Position in `delta.tool_calls` (0, 1, … in order of appearance). */
  index: number;
  id: string;
  /** Argument text sent so far. */
  sent: string;
}

/**
 * Stateful: feed it every runtime event in order. Call ids and indices are assigned on a call's first event;
 * argument fragments always concatenate to the final `arguments` (a complete call sends what was not yet sent).
 */
export class OpenAIStreamEncoder {
  readonly #meta: ResponseMeta;
  readonly #includeUsage: boolean;
  readonly #calls = new Map<number, OpenCall>();

  constructor(meta: ResponseMeta, includeUsage: boolean) {
    this.#meta = meta;
    this.#includeUsage = includeUsage;
  }

  /** The first chunk: the assistant role. */
  start(): OpenAIFrame[] {
    return [this.#chunk({ role: "assistant", content: "" })];
  }

  event(event: GenerateEvent): OpenAIFrame[] {
    switch (event.type) {
      case "text-delta":
        return event.text ? [this.#chunk({ content: event.text })] : [];
      case "reasoning-delta":
        return event.text ? [this.#chunk({ reasoning_content: event.text })] : [];
      case "tool-call-start":
        return [this.#open(event.index, event.id, event.name)];
      case "tool-call-delta": {
        const call = this.#calls.get(event.index);
        if (!call || !event.argumentsDelta) return [];
        call.sent += event.argumentsDelta;
        return fragments(event.argumentsDelta, ADAPTER_DEFAULTS.fragmentSize).map((part) => this.#args(call, part));
      }
      case "tool-call": {
        const frames: OpenAIFrame[] = [];
        if (!this.#calls.has(event.index)) frames.push(this.#open(event.index, event.call.id, event.call.name));
        const call = this.#calls.get(event.index)!;
        const rest = event.call.arguments.startsWith(call.sent) ? event.call.arguments.slice(call.sent.length) : "";
        if (rest) {
          call.sent += rest;
          for (const part of fragments(rest, ADAPTER_DEFAULTS.fragmentSize)) frames.push(this.#args(call, part));
        }
        return frames;
      }
      case "error":
        return [];
      case "done":
        return this.#finish(event.result);
    }
  }

  #open(runtimeIndex: number, id: string, name: string): OpenAIFrame {
    const call: OpenCall = { index: this.#calls.size, id: callId(id), sent: "" };
    this.#calls.set(runtimeIndex, call);
    return this.#chunk({ tool_calls: [{ index: call.index, id: call.id, type: "function", function: { name, arguments: "" } }] });
  }

  #args(call: OpenCall, fragment: string): OpenAIFrame {
    return this.#chunk({ tool_calls: [{ index: call.index, function: { arguments: fragment } }] });
  }

  #finish(result: GenerateResult): OpenAIFrame[] {
    const frames: OpenAIFrame[] = [this.#chunk({}, finishOf(result))];
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
