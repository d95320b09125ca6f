// Owns: translating parser results and events into Anthropic Messages shapes: `text` and `tool_use` content
// blocks, and streaming `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`) /
// `content_block_stop` events. Translates only; never parses.

import type { ParseEvent, ParseResult, ToolCall } from "../parse/types.js";
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
export function anthropicToolUseId(call: ToolCall): string {
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

/**
 * Per-stream translator from ParseEvents to Anthropic content-block events. Block indexes count from 0; a
 * text (or thinking) block stays open across deltas and is stopped before the next block starts or at
 * `finish`. Rejected blocks produce no event (the server decides what to do with them).
 */
export function createAnthropicEventTranslator(options: AnthropicOptions = {}): { translate(event: ParseEvent): AnthropicStreamEvent[] } {
  const size = options.fragmentSize ?? ADAPTER_DEFAULTS.fragmentSize;
  let next = 0;
  let open: { index: number; kind: "text" | "thinking" } | undefined;
  const stopOpen = (out: AnthropicStreamEvent[]) => {
    if (open) out.push({ type: "content_block_stop", index: open.index });
    open = undefined;
  };
  const ensure = (kind: "text" | "thinking", out: AnthropicStreamEvent[]): number => {
    if (open?.kind === kind) return open.index;
    stopOpen(out);
    open = { index: next++, kind };
    out.push({
      type: "content_block_start",
      index: open.index,
      content_block: kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" },
    });
    return open.index;
  };
  return {
    translate(event) {
      const out: AnthropicStreamEvent[] = [];
      switch (event.type) {
        case "text-delta": {
          const index = ensure("text", out);
          out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: event.text } });
          break;
        }
        case "reasoning-delta":
          if (options.includeThinking) {
            const index = ensure("thinking", out);
            out.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: event.text } });
          }
          break;
        case "call": {
          stopOpen(out);
          const index = next++;
          out.push({ type: "content_block_start", index, content_block: { ...toAnthropicToolUse(event.call), input: {} } });
          for (const partial_json of fragments(event.call.arguments, size)) {
            out.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
          }
          out.push({ type: "content_block_stop", index });
          break;
        }
        case "finish":
          stopOpen(out);
          break;
        default:
          break;
      }
      return out;
    },
  };
}
