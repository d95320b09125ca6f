import { describe, expect, it } from "vitest";
import { anthropicStopReason, createAnthropicEventTranslator, fragments, toAnthropicContent } from "../../src/adapters/index.js";
import { createParser, parse } from "../../src/parse/index.js";
import { counterIds, jsonCall, TOOLS } from "../parse/helpers.js";

describe("Anthropic adapter", () => {
  const text = `<think>why</think>Let me look.\n${jsonCall("read_file", { path: "a.ts" })}\n${jsonCall("list_files", { path: "." })}`;

  it("builds text and tool_use blocks with toolu_ ids and parsed input", () => {
    const r = parse(text, { tools: TOOLS, newId: counterIds("k") });
    expect(toAnthropicContent(r)).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "toolu_k1", name: "read_file", input: { path: "a.ts" } },
      { type: "tool_use", id: "toolu_k2", name: "list_files", input: { path: "." } },
    ]);
    expect(toAnthropicContent(r, { includeThinking: true })[0]).toEqual({ type: "thinking", thinking: "why", signature: "" });
    expect(anthropicStopReason(r)).toBe("tool_use");
    expect(anthropicStopReason(parse("x"), true)).toBe("max_tokens");
    expect(anthropicStopReason(parse("x"))).toBe("end_turn");
  });

  it("streams content_block_start / delta / stop events with input_json_delta fragments", () => {
    const parser = createParser({ tools: TOOLS, newId: counterIds("k") });
    const translator = createAnthropicEventTranslator({ fragmentSize: 4 });
    const events = [...parser.feed(text), ...parser.end()].flatMap((e) => translator.translate(e));
    const summary = events.map((e) => `${e.type}:${e.index}`);
    const jsonParts = events.filter((e) => e.type === "content_block_delta" && e.index === 1).map((e) => (e as { delta: { partial_json: string } }).delta.partial_json);
    expect(jsonParts.join("")).toBe('{"path":"a.ts"}');
    expect(summary).toEqual([
      "content_block_start:0",
      "content_block_delta:0",
      "content_block_stop:0",
      "content_block_start:1",
      ...jsonParts.map(() => "content_block_delta:1"),
      "content_block_stop:1",
      "content_block_start:2",
      ...Array(Math.ceil('{"path":"."}'.length / 4)).fill("content_block_delta:2"),
      "content_block_stop:2",
    ]);
    expect(events[3]).toEqual({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_k1", name: "read_file", input: {} } });
  });

  it("closes an open text block at finish", () => {
    const parser = createParser({ thinking: "closed" });
    const translator = createAnthropicEventTranslator();
    const events = [...parser.feed("hi"), ...parser.end()].flatMap((e) => translator.translate(e));
    expect(events.map((e) => e.type)).toEqual(["content_block_start", "content_block_delta", "content_block_stop"]);
  });

  it("splits fragments without cutting a surrogate pair", () => {
    expect(fragments("a😀b", 2)).toEqual(["a", "😀", "b"]);
    expect(fragments("😀😀", 1)).toEqual(["😀", "😀"]);
    expect(fragments("", 3)).toEqual([]);
    expect(() => fragments("x", 0)).toThrow(RangeError);
  });
});
