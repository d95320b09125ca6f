// Anthropic bodies → runtime requests: system, tool_use / tool_result history as OpenAI-shaped messages,
// tool_choice, thinking, sampling fields.

import { describe, expect, test } from "vitest";
import { ApiError } from "../../src/server/api-error.js";
import { anthropicToGenerate } from "../../src/server/anthropic-request.js";

const ctx = { mode: "constrained" as const, maxTokensLimit: 4096 };
const tool = { name: "read_file", description: "Read", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return `${e.status} ${e.code} ${e.param}`;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("anthropicToGenerate", () => {
  test("a tool round trip becomes system, user, assistant with tool_calls, tool results and user text", () => {
    const plan = anthropicToGenerate(
      {
        model: "m",
        max_tokens: 100,
        system: [{ type: "text", text: "Be brief." }, { type: "text", text: "Use tools." }],
        tools: [tool],
        messages: [
          { role: "user", content: "Read a.ts and b.ts" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "two files", signature: "" },
              { type: "text", text: "Reading." },
              { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
              { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b.ts" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "export const a = 1;" },
              { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "no such file" }], is_error: true },
              { type: "text", text: "Now summarize." },
            ],
          },
        ],
      },
      ctx,
    );
    expect(plan.stream).toBe(false);
    expect(plan.request.messages).toEqual([
      { role: "system", content: "Be brief.\nUse tools." },
      { role: "user", content: "Read a.ts and b.ts" },
      {
        role: "assistant",
        content: "Reading.",
        reasoning_content: "two files",
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
          { id: "toolu_2", type: "function", function: { name: "read_file", arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: "tool", content: "export const a = 1;", tool_call_id: "toolu_1", name: "read_file" },
      { role: "tool", content: "Error: no such file", tool_call_id: "toolu_2", name: "read_file" },
      { role: "user", content: "Now summarize." },
    ]);
    expect(plan.request.tools).toEqual([tool]);
    expect(plan.request.maxTokens).toBe(100);
    expect(plan.request.mode).toBe("constrained");
  });

  test("tool_choice: auto, any, tool, none and disable_parallel_tool_use", () => {
    const base = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }], tools: [tool] };
    const pick = (tool_choice: unknown) => {
      const r = anthropicToGenerate({ ...base, tool_choice }, ctx).request;
      return [r.toolChoice, r.parallel];
    };
    expect(pick({ type: "auto" })).toEqual(["auto", undefined]);
    expect(pick({ type: "any" })).toEqual(["required", undefined]);
    expect(pick({ type: "any", disable_parallel_tool_use: true })).toEqual(["required", false]);
    expect(pick({ type: "tool", name: "read_file" })).toEqual([{ name: "read_file" }, undefined]);
    expect(pick({ type: "none" })).toEqual(["none", undefined]);
    expect(code(() => pick({ type: "tool", name: "write_file" }))).toBe("400 invalid_tool_choice tool_choice.name");
  });

  test("sampling fields and thinking map onto the request", () => {
    const r = anthropicToGenerate(
      { model: "m", max_tokens: 200, messages: [{ role: "user", content: "x" }], temperature: 0.2, top_p: 0.9, top_k: 5, stream: true, thinking: { type: "enabled", budget_tokens: 50 } },
      ctx,
    );
    expect(r.stream).toBe(true);
    expect(r.request).toMatchObject({ temperature: 0.2, topP: 0.9, topK: 5, thinking: true, thinkingBudget: 50 });
    const off = anthropicToGenerate({ model: "m", max_tokens: 20, messages: [{ role: "user", content: "x" }], thinking: { type: "disabled" } }, ctx);
    expect(off.request.thinking).toBe(false);
  });

  test("refusals name the field", () => {
    const base = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] };
    expect(code(() => anthropicToGenerate({ ...base, max_tokens: 5000 }, ctx))).toBe("400 invalid_request max_tokens");
    expect(code(() => anthropicToGenerate({ ...base, stop_sequences: ["x".repeat(257)] }, ctx))).toBe("400 invalid_request stop_sequences[0]");
    expect(code(() => anthropicToGenerate({ ...base, tools: [tool, tool] }, ctx))).toBe("400 invalid_request tools[1]");
    expect(code(() => anthropicToGenerate({ ...base, messages: [{ role: "user", content: [{ type: "document", source: { type: "url", url: "x" } }] }] }, ctx))).toBe(
      "400 unsupported_parameter messages[0].content[0].source.type",
    );
    expect(code(() => anthropicToGenerate({ ...base, messages: [{ role: "user", content: [{ type: "video" }] }] }, ctx))).toBe(
      "400 unsupported_parameter messages[0].content[0].type",
    );
    expect(code(() => anthropicToGenerate({ ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: 3 }] }] }, ctx))).toBe(
      "400 invalid_request messages[0].content[0].input",
    );
  });
});
