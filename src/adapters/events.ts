// Owns: the one stream-event union the runtime emits and every API translator reads (text and reasoning deltas,
// a tool call's start / arguments deltas / whole call, a rejected block, done), and how parser events map onto it.

import type { CallError, ParseEvent, ToolCall } from "../parse/types.js";

/**
 * Stream events, one union keyed by `type` (the Vercel AI SDK's stream parts, in qtc's words). A call streams as
 * `tool-call-start`, any number of `tool-call-delta`s, then `tool-call` with the whole, valid call; `index` counts
 * the calls of the turn from 0. `done` ends the stream with the turn's result `R`.
 */
export type StreamEvent<R = unknown> =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call-start"; index: number; id: string; name: string }
  | { type: "tool-call-delta"; index: number; id: string; argumentsDelta: string }
  | { type: "tool-call"; index: number; call: ToolCall }
  | { type: "error"; error: CallError }
  | { type: "done"; result: R };

/** Every stream event but `done`: what a turn's content streams as. */
export type ContentEvent = Exclude<StreamEvent, { type: "done" }>;

/** What a translator works from: content events, then `end` (a stream's `done`, or a parser's `finish`). */
export type TranslatedEvent = ContentEvent | { type: "end" };

/**
 * The stream events of one parser event. The parser emits a call only once it is complete and valid, so it
 * streams as start, its whole arguments as one delta, and the call; `nextIndex` hands out the turn's call
 * indexes. Empty deltas and the parser's `finish` give nothing (the runtime ends the stream with `done`).
 */
export function streamEventsOf(event: ParseEvent, nextIndex: () => number): ContentEvent[] {
  switch (event.type) {
    case "text-delta":
    case "reasoning-delta":
      return event.text ? [{ type: event.type, text: event.text }] : [];
    case "call": {
      const index = nextIndex();
      const { call } = event;
      return [
        { type: "tool-call-start", index, id: call.id, name: call.name },
        { type: "tool-call-delta", index, id: call.id, argumentsDelta: call.arguments },
        { type: "tool-call", index, call },
      ];
    }
    case "call-rejected":
      return [{ type: "error", error: event.error }];
    case "finish":
      return [];
  }
}

/** What a translator reads: stream events, or a parser's events (mapped by streamEventsOf; its `finish` ends the stream). */
export type TranslatorInput = StreamEvent | ParseEvent;

/** Each translator's view of its input, per stream (it counts the parser's calls). */
export function translatorEvents(): (event: TranslatorInput) => TranslatedEvent[] {
  let calls = 0;
  const nextIndex = () => calls++;
  return (event) => {
    if (event.type === "done" || event.type === "finish") return [{ type: "end" }];
    if (event.type === "call" || event.type === "call-rejected") return streamEventsOf(event, nextIndex);
    return [event];
  };
}
