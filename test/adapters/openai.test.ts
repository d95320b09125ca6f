import { describe, expect, it } from "vitest";
import { createOpenAIDeltaTranslator, openAIFinishReason, toOpenAIMessage, toOpenAIToolCallDeltas, toOpenAIToolCalls } from "../../src/adapters/index.js";
import { createParser, parse } from "../../src/parse/index.js";
import { counterIds, jsonCall, TOOLS, xmlCall } from "../parse/helpers.js";

const text = `<think>plan</think>\nReading both.\n${jsonCall("read_file", { path: "a.ts" })}\n${xmlCall("grep", { pattern: "é😀", path: "src" })}`;

describe("OpenAI adapter", () => {
  it("turns calls into tool_calls with call_ ids", () => {
    const r = parse(text, { tools: TOOLS, newId: counterIds("x") });
    expect(toOpenAIToolCalls(r.calls)).toEqual([
      { id: "call_x1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
      { id: "call_x2", type: "function", function: { name: "grep", arguments: '{"pattern":"é😀","path":"src"}' } },
    ]);
    expect(toOpenAIMessage(r)).toEqual({ role: "assistant", content: "Reading both.", tool_calls: toOpenAIToolCalls(r.calls), reasoning_content: "plan" });
    expect(openAIFinishReason(r)).toBe("tool_calls");
  });

  it("gives content null for a calls-only turn, and no tool_calls for a text turn", () => {
    expect(toOpenAIMessage(parse(jsonCall("read_file", { path: "a" }), { tools: TOOLS }))).toMatchObject({ content: null });
    expect(toOpenAIMessage(parse("just text"))).toEqual({ role: "assistant", content: "just text" });
    expect(openAIFinishReason(parse("cut"), true)).toBe("length");
    expect(openAIFinishReason(parse("done"))).toBe("stop");
  });

  it("streams a call as an id/name delta then argument fragments that concatenate to the arguments", () => {
    const r = parse(text, { tools: TOOLS, newId: counterIds("x") });
    const deltas = toOpenAIToolCallDeltas(r.calls[1]!, 1, { fragmentSize: 5 });
    expect(deltas[0]).toEqual({ index: 1, id: "call_x2", type: "function", function: { name: "grep", arguments: "" } });
    expect(deltas.slice(1).every((d) => d.index === 1 && d.id === undefined && d.function.name === undefined)).toBe(true);
    expect(deltas.map((d) => d.function.arguments).join("")).toBe(r.calls[1]!.arguments);
    expect(deltas.slice(1).every((d) => !/[\uD800-\uDBFF]$/.test(d.function.arguments))).toBe(true);
  });

  it("translates a parser's event stream into deltas with per-stream indexes", () => {
    const parser = createParser({ tools: TOOLS, thinking: "auto", newId: counterIds("s") });
    const translator = createOpenAIDeltaTranslator({ fragmentSize: 1000 });
    const deltas = [...[...text].flatMap((c) => parser.feed(c)), ...parser.end()].flatMap((e) => translator.translate(e));
    expect(deltas.filter((d) => d.reasoning_content).map((d) => d.reasoning_content).join("")).toBe("plan");
    expect(deltas.filter((d) => d.content).map((d) => d.content).join("")).toBe("Reading both.");
    expect(deltas.filter((d) => d.tool_calls).map((d) => d.tool_calls![0])).toEqual([
      { index: 0, id: "call_s1", type: "function", function: { name: "read_file", arguments: "" } },
      { index: 0, function: { arguments: '{"path":"a.ts"}' } },
      { index: 1, id: "call_s2", type: "function", function: { name: "grep", arguments: "" } },
      { index: 1, function: { arguments: '{"pattern":"é😀","path":"src"}' } },
    ]);
  });
});
