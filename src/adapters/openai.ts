// Owns: translating results and stream events into OpenAI Chat Completions shapes: `tool_calls` on the assistant
// message and streaming `delta` objects (`delta.tool_calls[index]`). Translates only; never parses.

import type { ParseResult, ToolCall } from "../parse/types.js";
import { translatorEvents, type TranslatedEvent, type TranslatorInput } from "./events.js";
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
export function openAIToolCallId(call: Pick<ToolCall, "id">): string {
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

/** A call being streamed: its position in `delta.tool_calls` and the argument text sent so far. */
interface OpenCall {
  index: number;
  id: string;
  sent: string;
}

/**
 * Per-stream translator from stream events (or a parser's events) to OpenAI deltas: what the library and
 * `qtc serve` both send. Tool-call indexes count this stream's calls from 0 in order of appearance; ids and
 * indexes are assigned on a call's first event, and argument fragments always concatenate to the final
 * `arguments` (a whole call sends what its deltas did not). Rejected blocks and the end produce no delta (the
 * caller adds its finish).
 */
export function createOpenAIDeltaTranslator(options: OpenAIStreamOptions = {}): { translate(event: TranslatorInput): OpenAIDelta[] } {
  const size = options.fragmentSize ?? ADAPTER_DEFAULTS.fragmentSize;
  const events = translatorEvents();
  const calls = new Map<number, OpenCall>();
  const open = (eventIndex: number, id: string, name: string): OpenAIDelta => {
    const call: OpenCall = { index: calls.size, id: openAIToolCallId({ id }), sent: "" };
    calls.set(eventIndex, call);
    return { tool_calls: [{ index: call.index, id: call.id, type: "function", function: { name, arguments: "" } }] };
  };
  const args = (call: OpenCall, text: string): OpenAIDelta[] => {
    call.sent += text;
    return fragments(text, size).map((part) => ({ tool_calls: [{ index: call.index, function: { arguments: part } }] }));
  };
  const one = (event: TranslatedEvent): OpenAIDelta[] => {
    switch (event.type) {
      case "text-delta":
        return event.text ? [{ content: event.text }] : [];
      case "reasoning-delta":
        return event.text ? [{ reasoning_content: event.text }] : [];
      case "tool-call-start":
        return [open(event.index, event.id, event.name)];
      case "tool-call-delta": {
        const call = calls.get(event.index);
        return call && event.argumentsDelta ? args(call, event.argumentsDelta) : [];
      }
      case "tool-call": {
        const out = calls.has(event.index) ? [] : [open(event.index, event.call.id, event.call.name)];
        const call = calls.get(event.index)!;
        const rest = event.call.arguments.startsWith(call.sent) ? event.call.arguments.slice(call.sent.length) : "";
        return rest ? [...out, ...args(call, rest)] : out;
      }
      case "error":
      case "end":
        return [];
    }
  };
  return { translate: (event) => events(event).flatMap(one) };
}
