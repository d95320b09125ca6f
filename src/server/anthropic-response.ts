// Owns: the Anthropic messages response shapes: the `message` object, and the stream encoder that turns runtime
// events into message_start, content_block_start/delta/stop (text, thinking, tool_use with input_json_delta),
// message_delta (stop_reason, usage) and message_stop.

import { ADAPTER_DEFAULTS, anthropicStopReason, anthropicToolUseId, fragments, toAnthropicContent } from "../adapters/index.js";
import type { ToolCall } from "../parse/types.js";
import type { GenerateEvent, GenerateResult } from "../runtime/types.js";
import { qtcExtension, type ResponseMeta } from "./response-common.js";

/** `tool_use` when the turn made calls, `max_tokens` when it hit the limit without any, else `end_turn`. */
function stopReason(result: GenerateResult) {
  return anthropicStopReason({ calls: result.toolCalls }, result.finishReason === "length");
}

/** The `toolu_…` id of a runtime call id (the adapters' spelling, so library and server ids agree). */
const toolUseId = (id: string) => anthropicToolUseId({ id } as ToolCall);

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
    stop_sequence: null,
    usage: { input_tokens: result.usage.promptTokens, output_tokens: result.usage.completionTokens },
    qtc: qtcExtension(result),
  };
}

/** One SSE event: its name and its data. */
export interface AnthropicFrame {
  event: string;
  data: Record<string, unknown>;
}

type Block = { kind: "text" | "thinking"; index: number } | { kind: "tool_use"; index: number; runtimeIndex: number; sent: string };

/**
 * Stateful: feed it every runtime event in order. Text and thinking open a block when the previous block was of
 * another kind; each call is one tool_use block whose input_json_delta fragments concatenate to its input.
 */
export class AnthropicStreamEncoder {
  readonly #meta: ResponseMeta;
  #next = 0;
  #open: Block | null = null;
  #outputTokens = 0;

  constructor(meta: ResponseMeta) {
    this.#meta = meta;
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
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return [{ event: "message_start", data: { type: "message_start", message } }];
  }

  event(event: GenerateEvent): AnthropicFrame[] {
    switch (event.type) {
      case "text-delta":
      case "reasoning-delta": {
        if (!event.text) return [];
        const kind = event.type === "text-delta" ? "text" : "thinking";
        const frames = this.#open?.kind === kind ? [] : this.#openBlock(kind);
        const delta = kind === "text" ? { type: "text_delta", text: event.text } : { type: "thinking_delta", thinking: event.text };
        frames.push(this.#delta(delta));
        return frames;
      }
      case "tool-call-start":
        return this.#openTool(event.index, event.id, event.name);
      case "tool-call-delta": {
        const block = this.#open;
        if (block?.kind !== "tool_use" || block.runtimeIndex !== event.index || !event.argumentsDelta) return [];
        block.sent += event.argumentsDelta;
        return this.#jsonDeltas(event.argumentsDelta);
      }
      case "tool-call": {
        const block = this.#open;
        const frames: AnthropicFrame[] = [];
        let sent = "";
        if (block?.kind === "tool_use" && block.runtimeIndex === event.index) sent = block.sent;
        else frames.push(...this.#openTool(event.index, event.call.id, event.call.name));
        const rest = event.call.arguments.startsWith(sent) ? event.call.arguments.slice(sent.length) : "";
        frames.push(...this.#jsonDeltas(rest));
        frames.push(...this.#close());
        return frames;
      }
      case "error":
        return [];
      case "done": {
        this.#outputTokens = event.result.usage.completionTokens;
        return [
          ...this.#close(),
          {
            event: "message_delta",
            data: {
              type: "message_delta",
              delta: { stop_reason: stopReason(event.result), stop_sequence: null },
              usage: { input_tokens: event.result.usage.promptTokens, output_tokens: this.#outputTokens },
            },
          },
          { event: "message_stop", data: { type: "message_stop" } },
        ];
      }
    }
  }

  #openTool(runtimeIndex: number, id: string, name: string): AnthropicFrame[] {
    const frames = this.#close();
    const index = this.#next++;
    this.#open = { kind: "tool_use", index, runtimeIndex, sent: "" };
    const block = { type: "tool_use", id: toolUseId(id), name, input: {} };
    frames.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: block } });
    return frames;
  }

  #openBlock(kind: "text" | "thinking"): AnthropicFrame[] {
    const frames = this.#close();
    const index = this.#next++;
    this.#open = { kind, index };
    const block = kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" };
    frames.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: block } });
    return frames;
  }

  #jsonDeltas(json: string): AnthropicFrame[] {
    return fragments(json, ADAPTER_DEFAULTS.fragmentSize).map((partial_json) => this.#delta({ type: "input_json_delta", partial_json }));
  }

  #delta(delta: Record<string, unknown>): AnthropicFrame {
    return { event: "content_block_delta", data: { type: "content_block_delta", index: this.#open!.index, delta } };
  }

  #close(): AnthropicFrame[] {
    if (!this.#open) return [];
    const index = this.#open.index;
    this.#open = null;
    return [{ event: "content_block_stop", data: { type: "content_block_stop", index } }];
  }
}
