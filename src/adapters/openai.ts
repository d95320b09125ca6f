// Owns: translating parser results and events into OpenAI Chat Completions shapes: `tool_calls` on the
// assistant message and streaming `delta` objects (`delta.tool_calls[index]`). Translates only; never parses.

import type { ParseEvent, ParseResult, ToolCall } from "../parse/types.js";
import { ADAPTER_DEFAULTS, fragments } from "./fragments.js";

export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface OpenAIAssistantMessage {
  role: "assistant";
  /** null when the turn is only tool calls. */
  content: string | null;
  tool_calls?: OpenAIToolCall[];
  /** The `<think>` text, as vLLM and llama.cpp report it; omitted when there was none. */
  reasoning_content?: string;
}

export interface OpenAIToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments: string };
}

/** One `choices[0].delta` of a chat.completion.chunk. */
export interface OpenAIDelta {
  role?: "assistant";
  content?: string;
  reasoning_content?: string;
  tool_calls?: OpenAIToolCallDelta[];
}

export type OpenAIFinishReason = "stop" | "tool_calls" | "length";

export interface OpenAIStreamOptions {
  /** UTF-16 units of arguments JSON per `tool_calls` delta after the first. Default: 64. */
  fragmentSize?: number;
}

/** The OpenAI id of a call: `call_` + its internal id. */
export function openAIToolCallId(call: ToolCall): string {
  return `call_${call.id}`;
}

export function toOpenAIToolCalls(calls: readonly ToolCall[]): OpenAIToolCall[] {
  return calls.map((call) => ({ id: openAIToolCallId(call), type: "function", function: { name: call.name, arguments: call.arguments } }));
}

/** The assistant message for a finished turn: text (or null), tool calls when any, reasoning when any. */
export function toOpenAIMessage(result: Pick<ParseResult, "content" | "reasoning" | "calls">): OpenAIAssistantMessage {
  const message: OpenAIAssistantMessage = {
    role: "assistant",
    content: result.content === "" && result.calls.length > 0 ? null : result.content,
  };
  if (result.calls.length > 0) message.tool_calls = toOpenAIToolCalls(result.calls);
  if (result.reasoning) message.reasoning_content = result.reasoning;
  return message;
}

/** `tool_calls` for a turn with calls, `length` when cut off at the token limit, else `stop`. */
export function openAIFinishReason(result: Pick<ParseResult, "calls">, truncated = false): OpenAIFinishReason {
  if (result.calls.length > 0) return "tool_calls";
  return truncated ? "length" : "stop";
}

/**
 * The `delta.tool_calls` entries that stream one call: first `{index, id, type, function: {name, arguments: ""}}`,
 * then `{index, function: {arguments: fragment}}` until the arguments JSON is complete.
 */
export function toOpenAIToolCallDeltas(call: ToolCall, index: number, options: OpenAIStreamOptions = {}): OpenAIToolCallDelta[] {
  const size = options.fragmentSize ?? ADAPTER_DEFAULTS.fragmentSize;
  return [
    { index, id: openAIToolCallId(call), type: "function", function: { name: call.name, arguments: "" } },
    ...fragments(call.arguments, size).map((arguments_) => ({ index, function: { arguments: arguments_ } })),
  ];
}

/**
 * Per-stream translator from ParseEvents to OpenAI deltas. Tool-call indexes count the calls of this stream
 * from 0. Rejected blocks and `finish` produce no delta (the server decides what to do with them).
 */
export function createOpenAIDeltaTranslator(options: OpenAIStreamOptions = {}): { translate(event: ParseEvent): OpenAIDelta[] } {
  let index = 0;
  return {
    translate(event) {
      switch (event.type) {
        case "text-delta":
          return [{ content: event.text }];
        case "reasoning-delta":
          return [{ reasoning_content: event.text }];
        case "call":
          return toOpenAIToolCallDeltas(event.call, index++, options).map((d) => ({ tool_calls: [d] }));
        default:
          return [];
      }
    },
  };
}
