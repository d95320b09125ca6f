// OpenAI bodies → runtime requests: message roles and content parts, history calls, tool_choice, sampling.

import { describe, expect, test } from "vitest";
import { ApiError } from "../../src/server/api-error.js";
import { openAIToGenerate } from "../../src/server/openai-request.js";

const ctx = { mode: "unconstrained" as const, defaultMaxTokens: 333, maxTokensLimit: 4096 };
const tool = { type: "function", function: { name: "grep", parameters: { type: "object", properties: { pattern: { type: "string" } } } } };

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return `${e.status} ${e.code} ${e.param}`;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("openAIToGenerate", () => {
  test("messages: developer is system, parts join, tool results are named after their call", () => {
    const plan = openAIToGenerate(
      {
        messages: [
          { role: "developer", content: "Rules." },
          { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
          { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "grep", arguments: '{"pattern":"x"}' } }] },
          { role: "tool", tool_call_id: "call_9", content: "3 matches" },
        ],
        tools: [tool],
      },
      ctx,
    );
    expect(plan.request.messages).toEqual([
      { role: "system", content: "Rules." },
      { role: "user", content: "a\nb" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "grep", arguments: '{"pattern":"x"}' } }] },
      { role: "tool", content: "3 matches", tool_call_id: "call_9", name: "grep" },
    ]);
    expect(plan.request.mode).toBe("unconstrained");
    expect(plan.request.maxTokens).toBe(333);
    expect(plan.request.toolChoice).toBeUndefined();
  });

  test("tool_choice, parallel_tool_calls, limits, sampling, seed and reasoning_effort", () => {
    const plan = openAIToGenerate(
      {
        messages: [{ role: "user", content: "x" }],
        tools: [tool],
        tool_choice: { type: "function", function: { name: "grep" } },
        parallel_tool_calls: false,
        max_tokens: 50,
        max_completion_tokens: 60,
        temperature: 0,
        top_p: 0.5,
        seed: -1,
        reasoning_effort: "low",
        stream: true,
        stream_options: { include_usage: true },
      },
      ctx,
    );
    expect(plan.request).toMatchObject({ toolChoice: { name: "grep" }, parallel: false, maxTokens: 60, temperature: 0, topP: 0.5, seed: 4294967295, thinking: true });
    expect(plan.stream).toBe(true);
    expect(plan.includeUsage).toBe(true);
    const simple = (tool_choice: unknown) => openAIToGenerate({ messages: [{ role: "user", content: "x" }], tools: [tool], tool_choice }, ctx).request.toolChoice;
    expect([simple("auto"), simple("required"), simple("none")]).toEqual(["auto", "required", "none"]);
  });

  test("neutral values of unsupported parameters pass", () => {
    const plan = openAIToGenerate({ messages: [{ role: "user", content: "x" }], n: 1, logprobs: false, stop: [], frequency_penalty: 0, presence_penalty: 0, modalities: ["text"], user: "u1", store: false }, ctx);
    expect(plan.request.messages).toEqual([{ role: "user", content: "x" }]);
  });

  test("refusals name the field", () => {
    const m = [{ role: "user", content: "x" }];
    expect(code(() => openAIToGenerate({ messages: m, max_tokens: 5000 }, ctx))).toBe("400 invalid_request max_tokens");
    expect(code(() => openAIToGenerate({ messages: m, top_logprobs: 2 }, ctx))).toBe("400 invalid_request top_logprobs");
    expect(code(() => openAIToGenerate({ messages: m, logit_bias: { "1": 5 } }, ctx))).toBe("400 unsupported_parameter logit_bias");
    expect(code(() => openAIToGenerate({ messages: [{ role: "function", content: "x" }] }, ctx))).toBe("400 unsupported_parameter messages[0].role");
    expect(code(() => openAIToGenerate({ messages: [{ role: "assistant", tool_calls: [{ function: { arguments: "{}" } }] }] }, ctx))).toBe(
      "400 invalid_request messages[0].tool_calls[0].function.name",
    );
    expect(code(() => openAIToGenerate({ messages: m, tools: [{ type: "function", function: { name: "has space" } }] }, ctx))).toBe(
      "400 invalid_request tools[0].function.name",
    );
  });

  test("response_format: text adds nothing; json_schema and json_object become the runtime's response schema, with or without tools", () => {
    const m = [{ role: "user", content: "x" }];
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const format = { type: "json_schema", json_schema: { name: "answer", schema } };
    expect(openAIToGenerate({ messages: m, response_format: { type: "text" } }, ctx).request.responseSchema).toBeUndefined();
    expect(openAIToGenerate({ messages: m, response_format: format }, ctx).request.responseSchema).toBe(schema);
    expect(openAIToGenerate({ messages: m, response_format: { type: "json_object" } }, ctx).request.responseSchema).toEqual({ type: "object" });
    const withTools = openAIToGenerate({ messages: m, response_format: format, tools: [tool] }, ctx).request;
    expect([withTools.responseSchema, withTools.tools?.length]).toEqual([schema, 1]);
    expect(code(() => openAIToGenerate({ messages: m, response_format: { type: "json_schema", json_schema: { schema } } }, ctx))).toBe(
      "400 invalid_request response_format.json_schema.name",
    );
    const broken = { type: "json_schema", json_schema: { name: "x", schema: { type: "object", properties: { a: { type: "no-such-type" } } } } };
    expect(code(() => openAIToGenerate({ messages: m, response_format: broken }, ctx))).toBe("400 invalid_schema response_format.json_schema.schema");
  });
});
