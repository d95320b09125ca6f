// The OpenAI and Anthropic stream encoders: call indices and ids, fragments that concatenate to the final
// arguments (also when the runtime sends a call whole, or its deltas stop short), block order, finish frames.

import { describe, expect, test } from "vitest";
import type { ToolCall } from "../../src/parse/types.js";
import type { GenerateEvent, GenerateResult } from "../../src/runtime/types.js";
import { AnthropicStreamEncoder, anthropicMessage } from "../../src/server/anthropic-response.js";
import { OpenAIStreamEncoder, openAICompletion } from "../../src/server/openai-response.js";

const meta = { id: "chatcmpl-1", created: 1, model: "m" };

function call(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, name, arguments: JSON.stringify(args), parsedArguments: args, format: "hermes", raw: "", start: 0, end: 0 };
}

function result(over: Partial<GenerateResult>): GenerateResult {
  return {
    content: "",
    reasoning: null,
    toolCalls: [],
    errors: [],
    finishReason: "stop",
    usage: { promptTokens: 7, completionTokens: 5, forcedTokens: 2 },
    timings: { timeToFirstTokenMs: 1, decodeTokensPerSecond: 1, grammarMs: 0, totalMs: 1 },
    diagnostics: { detected: 0, accepted: 0, rejected: {}, emitted: 0, notes: [] },
    raw: "",
    tokens: [],
    mode: "constrained",
    format: "hermes",
    ...over,
  };
}

const a = call("a1", "read_file", { path: "x.ts" });
const b = call("b2", "grep", { pattern: "TODO", path: "." });
const done = result({ content: "Let me look.", toolCalls: [a, b], finishReason: "tool_calls" });
const EVENTS: GenerateEvent[] = [
  { type: "reasoning-delta", text: "hmm" },
  { type: "text-delta", text: "Let me " },
  { type: "text-delta", text: "look." },
  { type: "tool-call-start", index: 0, id: "a1", name: "read_file" },
  { type: "tool-call-delta", index: 0, id: "a1", argumentsDelta: '{"path":' },
  { type: "tool-call-delta", index: 0, id: "a1", argumentsDelta: '"x.ts"' },
  { type: "tool-call", index: 0, call: a }, // the runtime's deltas stopped short: the encoder sends the rest
  { type: "error", error: { reason: "unknown_tool", message: "no such tool", raw: "", start: 0, end: 0 } },
  { type: "tool-call", index: 1, call: b }, // a whole call with no start
  { type: "done", result: done },
];

describe("OpenAIStreamEncoder", () => {
  test("role first; tool_calls[index] with id, type and name, then fragments that concatenate; finish; usage; [DONE]", () => {
    const enc = new OpenAIStreamEncoder(meta, true);
    const frames = [...enc.start(), ...EVENTS.flatMap((e) => enc.event(e))];
    expect(frames.at(-1)).toBe("[DONE]");
    const chunks = frames.slice(0, -1) as any[];
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === "chatcmpl-1")).toBe(true);
    const deltas = chunks.filter((c) => c.choices.length).map((c) => c.choices[0].delta);
    expect(deltas.map((d) => d.reasoning_content ?? "").join("")).toBe("hmm");
    expect(deltas.map((d) => d.content ?? "").join("")).toBe("Let me look.");
    const parts = deltas.flatMap((d) => d.tool_calls ?? []);
    const starts = parts.filter((p) => p.id);
    expect(starts).toEqual([
      { index: 0, id: "call_a1", type: "function", function: { name: "read_file", arguments: "" } },
      { index: 1, id: "call_b2", type: "function", function: { name: "grep", arguments: "" } },
    ]);
    for (const [i, c] of [a, b].entries()) {
      expect(parts.filter((p) => p.index === i).map((p) => p.function.arguments).join("")).toBe(c.arguments);
    }
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  test("without include_usage there is no usage field and no usage chunk", () => {
    const enc = new OpenAIStreamEncoder(meta, false);
    const frames = [...enc.start(), ...enc.event({ type: "done", result: result({ content: "" }) })] as any[];
    expect(frames).toHaveLength(3);
    expect(frames.slice(0, 2).every((c) => !("usage" in c))).toBe(true);
    expect(frames[1].choices[0].finish_reason).toBe("stop");
  });

  test("chat.completion: content null with calls, reasoning_content, usage, finish tool_calls even at the limit", () => {
    const body = openAICompletion(result({ toolCalls: [a], finishReason: "length", reasoning: "r" }), meta) as any;
    expect(body.choices[0]).toEqual({
      index: 0,
      message: { role: "assistant", content: null, refusal: null, reasoning_content: "r", tool_calls: [{ id: "call_a1", type: "function", function: { name: "read_file", arguments: '{"path":"x.ts"}' } }] },
      logprobs: null,
      finish_reason: "tool_calls",
    });
    expect(body.usage).toEqual({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    expect(body.qtc).toMatchObject({ mode: "constrained", format: "hermes", forced_tokens: 2, rejected_calls: [] });
    expect((openAICompletion(result({ content: "", finishReason: "length" }), meta) as any).choices[0].message.content).toBe("");
  });
});

describe("AnthropicStreamEncoder", () => {
  test("message_start, then thinking, text and one tool_use block per call, message_delta, message_stop", () => {
    const enc = new AnthropicStreamEncoder({ ...meta, id: "msg_1" });
    const frames = [...enc.start(), ...EVENTS.flatMap((e) => enc.event(e))];
    expect(frames.every((f) => f.event === f.data.type)).toBe(true);
    expect(frames.map((f) => (f.event === "content_block_delta" ? `delta:${(f.data.delta as any).type}` : f.event))).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "delta:thinking_delta",
      "content_block_stop",
      "content_block_start",
      "delta:text_delta",
      "delta:text_delta",
      "content_block_stop",
      "content_block_start",
      "delta:input_json_delta",
      "delta:input_json_delta",
      "delta:input_json_delta",
      "content_block_stop",
      "content_block_start",
      "delta:input_json_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const starts = frames.filter((f) => f.event === "content_block_start").map((f) => [f.data.index, f.data.content_block]);
    expect(starts).toEqual([
      [0, { type: "thinking", thinking: "", signature: "" }],
      [1, { type: "text", text: "" }],
      [2, { type: "tool_use", id: "toolu_a1", name: "read_file", input: {} }],
      [3, { type: "tool_use", id: "toolu_b2", name: "grep", input: {} }],
    ]);
    const json = (index: number) =>
      frames
        .filter((f) => f.event === "content_block_delta" && f.data.index === index)
        .map((f) => (f.data.delta as any).partial_json)
        .join("");
    expect(JSON.parse(json(2))).toEqual(a.parsedArguments);
    expect(JSON.parse(json(3))).toEqual(b.parsedArguments);
    expect(frames.at(-2)!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 7, output_tokens: 5 },
      qtc: { mode: "constrained", format: "hermes", forced_tokens: 2, rejected_calls: [], timings: done.timings },
    });
  });

  test("message: thinking, text, tool_use blocks; stop reasons", () => {
    const body = anthropicMessage(result({ content: "Hi", reasoning: "r", toolCalls: [a], finishReason: "tool_calls" }), { ...meta, id: "msg_1" }) as any;
    expect(body.content).toEqual([
      { type: "thinking", thinking: "r", signature: "" },
      { type: "text", text: "Hi" },
      { type: "tool_use", id: "toolu_a1", name: "read_file", input: { path: "x.ts" } },
    ]);
    expect([body.type, body.role, body.stop_reason, body.stop_sequence]).toEqual(["message", "assistant", "tool_use", null]);
    expect(body.usage).toEqual({ input_tokens: 7, output_tokens: 5 });
    expect((anthropicMessage(result({ content: "x", finishReason: "length" }), meta) as any).stop_reason).toBe("max_tokens");
    expect((anthropicMessage(result({ content: "x" }), meta) as any).stop_reason).toBe("end_turn");
  });
});
