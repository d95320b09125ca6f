// Owns: the Anthropic messages response shapes: the `message` object, and the stream encoder that turns runtime
// events into message_start, content_block_start/delta/stop (text, thinking, tool_use with input_json_delta),
// message_delta (stop_reason, usage, the `qtc` object) and message_stop.

import { anthropicStopReason, createAnthropicEventTranslator, toAnthropicContent } from "../adapters/index.js";
import type { GenerateEvent, GenerateResult } from "../runtime/types.js";
import type { StoppableResult } from "./stop-sequences.js";
import { qtcExtension, type ResponseMeta } from "./response-common.js";

/**
 * `stop_sequence` when a stop sequence cut the answer (calls made before it still count), `tool_use` when the turn
 * made calls, `max_tokens` when it hit the limit without any, else `end_turn`.
 */
function stopReason(result: StoppableResult) {
  if (result.stopSequence !== undefined && result.toolCalls.length === 0) return "stop_sequence";
  return anthropicStopReason({ calls: result.toolCalls }, result.finishReason === "length");
}

/** The `stop_sequence` field: the sequence that stopped the turn, when `stop_reason` says so. */
function stopSequence(result: StoppableResult): string | null {
  return stopReason(result) === "stop_sequence" ? (result.stopSequence ?? null) : null;
}

/** The `message` object for a finished turn: thinking, then text, then the tool_use blocks. */
export function anthropicMessage(result: GenerateResult, meta: ResponseMeta): Record<string, unknown> {
  const content = toAnthropicContent({ content: result.content, reasoning: result.reasoning, calls: result.toolCalls }, { includeThinking: true });
  return {
    id: meta.id,
    type: "message",
    role: "assistant",
    model: meta.model,
    content,
    stop_reason: stopReason(result),
    stop_sequence: stopSequence(result),
    usage: { input_tokens: result.usage.promptTokens, output_tokens: result.usage.completionTokens },
    qtc: qtcExtension(result),
  };
}

/** One SSE event: its name and its data. */
export interface AnthropicFrame {
  event: string;
  data: Record<string, unknown>;
}

/**
 * Stateful: feed it every runtime event in order. The adapters' event translator (the library's own) writes the
 * content blocks; this names each SSE event and adds message_start, message_delta (stop_reason, usage) and
 * message_stop.
 */
export class AnthropicStreamEncoder {
  readonly #meta: ResponseMeta;
  readonly #blocks = createAnthropicEventTranslator({ includeThinking: true });
  readonly #inputTokens: number;

  /** `inputTokens`: the prompt's tokens, counted before generation so that message_start can report them. */
  constructor(meta: ResponseMeta, inputTokens = 0) {
    this.#meta = meta;
    this.#inputTokens = inputTokens;
  }

  /** A keep-alive event; Anthropic sends one after message_start and while a long stream runs. */
  ping(): AnthropicFrame[] {
    return [{ event: "ping", data: { type: "ping" } }];
  }

  start(): AnthropicFrame[] {
    const message = {
      id: this.#meta.id,
      type: "message",
      role: "assistant",
      model: this.#meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: this.#inputTokens, output_tokens: 0 },
    };
    return [{ event: "message_start", data: { type: "message_start", message } }, ...this.ping()];
  }

  event(event: GenerateEvent): AnthropicFrame[] {
    const frames: AnthropicFrame[] = this.#blocks.translate(event).map((e) => ({ event: e.type, data: e as unknown as Record<string, unknown> }));
    if (event.type !== "done") return frames;
    const { usage } = event.result;
    frames.push(
      {
        event: "message_delta",
        data: {
          type: "message_delta",
          delta: { stop_reason: stopReason(event.result), stop_sequence: stopSequence(event.result) },
          usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens },
          // What a non-streamed message says in `qtc` (rejected calls, notices); clients ignore unknown fields.
          qtc: qtcExtension(event.result),
        },
      },
      { event: "message_stop", data: { type: "message_stop" } },
    );
    return frames;
  }
}
