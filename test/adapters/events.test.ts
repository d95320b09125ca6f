// The one stream-event union: parser events map onto it once (streamEventsOf), and each API's translator gives the
// same output whether it reads the parser's events or the stream events a runtime emits.

import { describe, expect, it } from "vitest";
import { createAnthropicEventTranslator, createOpenAIDeltaTranslator, streamEventsOf, type StreamEvent } from "../../src/adapters/index.js";
import { createParser } from "../../src/parse/index.js";
import type { ParseEvent } from "../../src/parse/types.js";
import { counterIds, jsonCall, TOOLS } from "../parse/helpers.js";

const text = `<think>plan</think>\nReading.\n${jsonCall("read_file", { path: "a.ts" })}\n${jsonCall("grep", { pattern: "é😀", path: "src" })}`;

function parseEvents(): ParseEvent[] {
  const parser = createParser({ tools: TOOLS, thinking: "auto", newId: counterIds("e") });
  return [...[...text].flatMap((c) => parser.feed(c)), ...parser.end()];
}

/** What a runtime streams for the same text: the mapped events, then `done`. */
function runtimeEvents(): StreamEvent[] {
  let calls = 0;
  return [...parseEvents().flatMap((e) => streamEventsOf(e, () => calls++)), { type: "done", result: {} }];
}

describe("stream events", () => {
  it("a parsed call streams as start, its whole arguments, then the call; indexes count the turn's calls", () => {
    const calls = runtimeEvents().filter((e) => e.type.startsWith("tool-call"));
    expect(calls.map((e) => `${e.type}:${"index" in e ? e.index : ""}`)).toEqual([
      "tool-call-start:0",
      "tool-call-delta:0",
      "tool-call:0",
      "tool-call-start:1",
      "tool-call-delta:1",
      "tool-call:1",
    ]);
    expect(calls[1]).toEqual({ type: "tool-call-delta", index: 0, id: "e1", argumentsDelta: '{"path":"a.ts"}' });
  });

  it("each translator reads parser events and runtime events alike", () => {
    for (const make of [() => createOpenAIDeltaTranslator({ fragmentSize: 4 }), () => createAnthropicEventTranslator({ fragmentSize: 4, includeThinking: true })]) {
      const fromParser = make();
      const fromRuntime = make();
      const a = parseEvents().flatMap((e) => fromParser.translate(e));
      const b = runtimeEvents().flatMap((e) => fromRuntime.translate(e));
      expect(b).toEqual(a);
      expect(a.length).toBeGreaterThan(6);
    }
  });

  it("a call sent whole (no start or deltas) still streams in full, once", () => {
    const [start, , whole] = runtimeEvents().filter((e) => e.type.startsWith("tool-call"));
    const openai = createOpenAIDeltaTranslator({ fragmentSize: 1000 });
    const deltas = [whole!, whole!].flatMap((e) => openai.translate(e));
    expect(deltas).toEqual([
      { tool_calls: [{ index: 0, id: "call_e1", type: "function", function: { name: "read_file", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"path":"a.ts"}' } }] },
    ]);
    expect(start).toMatchObject({ type: "tool-call-start", id: "e1" });
  });
});
