// Owns: translating results and stream events into Anthropic Messages shapes: `text` and `tool_use` content
// blocks, and streaming `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`) /
// `content_block_stop` events. Translates only; never parses.

import type { ParseResult, ToolCall } from "../parse/types.js";
import { translatorEvents, type TranslatedEvent, type TranslatorInput } from "./events.js";
import { ADAPTER_DEFAULTS, fragments } from "./fragments.js";

export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export type AnthropicStopReason = "end_turn" | "tool_use" | "max_tokens";

export type AnthropicStreamEvent =
  | { type: "content_block_start"; index: number; content_block: AnthropicContentBlock }
  | {
      type: "content_block_delta";
      index: number;
      delta:
        | { type: "text_delta"; text: string }
        | { type: "thinking_delta"; thinking: string }
        | { type: "input_json_delta"; partial_json: string };
    }
  | { type: "content_block_stop"; index: number };

export interface AnthropicOptions {
  /** Include the `<think>` text as a `thinking` block (with an empty signature). Default: false. */
  includeThinking?: boolean;
  /** UTF-16 units of arguments JSON per `input_json_delta`. Default: 64. */
  fragmentSize?: number;
}

/** The Anthropic id of a call: `toolu_` + its internal id. */
export function anthropicToolUseId(call: Pick<ToolCall, "id">): string {
  return `toolu_${call.id}`;
}

export function toAnthropicToolUse(call: ToolCall): Extract<AnthropicContentBlock, { type: "tool_use" }> {
  return { type: "tool_use", id: anthropicToolUseId(call), name: call.name, input: call.parsedArguments };
}

/** The assistant content for a finished turn: [thinking], [text], then one tool_use per call, in order. */
export function toAnthropicContent(result: Pick<ParseResult, "content" | "reasoning" | "calls">, options: AnthropicOptions = {}): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  if (options.includeThinking && result.reasoning) blocks.push({ type: "thinking", thinking: result.reasoning, signature: "" });
  if (result.content !== "") blocks.push({ type: "text", text: result.content });
  for (const call of result.calls) blocks.push(toAnthropicToolUse(call));
  return blocks;
}

/** `tool_use` for a turn with calls, `max_tokens` when cut off at the token limit, else `end_turn`. */
export function anthropicStopReason(result: Pick<ParseResult, "calls">, truncated = false): AnthropicStopReason {
  if (result.calls.length > 0) return "tool_use";
  return truncated ? "max_tokens" : "end_turn";
}

type OpenBlock = { kind: "text" | "thinking"; index: number } | { kind: "tool_use"; index: number; eventIndex: number; sent: string };

/**
 * Per-stream translator from stream events (or a parser's events) to Anthropic content-block events: what the
 * library and `qtc serve` both send. Block indexes count from 0; a text (or thinking) block stays open across
 * deltas and is stopped before the next block starts or at the end. Each call is one tool_use block whose
 * input_json_delta fragments concatenate to its input (a whole call sends what its deltas did not). Rejected
 * blocks produce no event (the caller decides what to do with them).
 */
export function createAnthropicEventTranslator(options: AnthropicOptions = {}): { translate(event: TranslatorInput): AnthropicStreamEvent[] } {
  const size = options.fragmentSize ?? ADAPTER_DEFAULTS.fragmentSize;
  const events = translatorEvents();
  let next = 0;
  let open: OpenBlock | null = null;
  const close = (): AnthropicStreamEvent[] => {
    if (!open) return [];
    const index = open.index;
    open = null;
    return [{ type: "content_block_stop", index }];
  };
  const start = (block: OpenBlock, content_block: AnthropicContentBlock): AnthropicStreamEvent[] => {
    const out = close();
    open = block;
    out.push({ type: "content_block_start", index: block.index, content_block });
    return out;
  };
  const openTool = (eventIndex: number, id: string, name: string) =>
    start({ kind: "tool_use", index: next++, eventIndex, sent: "" }, { type: "tool_use", id: anthropicToolUseId({ id }), name, input: {} });
  const json = (index: number, text: string): AnthropicStreamEvent[] =>
    fragments(text, size).map((partial_json) => ({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }));
  const one = (event: TranslatedEvent): AnthropicStreamEvent[] => {
    switch (event.type) {
      case "text-delta": {
        if (!event.text) return [];
        const out = open?.kind === "text" ? [] : start({ kind: "text", index: next++ }, { type: "text", text: "" });
        out.push({ type: "content_block_delta", index: open!.index, delta: { type: "text_delta", text: event.text } });
        return out;
      }
      case "reasoning-delta": {
        if (!event.text || !options.includeThinking) return [];
        const out = open?.kind === "thinking" ? [] : start({ kind: "thinking", index: next++ }, { type: "thinking", thinking: "", signature: "" });
        out.push({ type: "content_block_delta", index: open!.index, delta: { type: "thinking_delta", thinking: event.text } });
        return out;
      }
      case "tool-call-start":
        return openTool(event.index, event.id, event.name);
      case "tool-call-delta": {
        const block = open;
        if (block?.kind !== "tool_use" || block.eventIndex !== event.index || !event.argumentsDelta) return [];
        block.sent += event.argumentsDelta;
        return json(block.index, event.argumentsDelta);
      }
      case "tool-call": {
        const block = open;
        const current = block?.kind === "tool_use" && block.eventIndex === event.index;
        const out = current ? [] : openTool(event.index, event.call.id, event.call.name);
        const sent = current ? block.sent : "";
        const rest = event.call.arguments.startsWith(sent) ? event.call.arguments.slice(sent.length) : "";
        return [...out, ...json(open!.index, rest), ...close()];
      }
      case "error":
        return [];
      case "end":
        return close();
    }
  };
  return { translate: (event) => events(event).flatMap(one) };
}
