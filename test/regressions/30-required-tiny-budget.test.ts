// Issue 30, item 5: "required, and nothing". On /v1/responses, tool choice `required` with max_output_tokens 16
// answered 200 `incomplete` with no call, and a streamed chat request whose tool has a 10,000-character `pattern`
// answered 200 with no call under `required`. Every route refuses up front what it cannot deliver, with the
// same code (budget_too_small), streamed or not.

import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { expectAnthropicError, expectOpenAIError, post } from "../server/helpers.js";

const server = useTinyServer();

const params = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const longPattern = { type: "object", properties: { a: { type: "string", pattern: `^${"a".repeat(10_000)}$` } }, required: ["a"] };
const user = [{ role: "user", content: "hi" }];

describe("a required call that cannot fit is refused up front on every route", () => {
  test.each([false, true])("/v1/responses, required, max_output_tokens 16 (stream %s) → 400 budget_too_small", async (stream) => {
    const res = await post(`${server.url}/v1/responses`, { model: "m", input: "hi", tools: [{ type: "function", name: "f", parameters: params }], tool_choice: "required", max_output_tokens: 16, stream });
    expectOpenAIError(res, 400, "budget_too_small", "max_output_tokens");
  });

  test.each([false, true])("/v1/chat/completions, required, max_tokens 16 (stream %s) → 400 budget_too_small", async (stream) => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [{ type: "function", function: { name: "f", parameters: params } }], tool_choice: "required", max_tokens: 16, stream });
    expectOpenAIError(res, 400, "budget_too_small", "max_tokens");
  });

  test("/v1/chat/completions streamed, a 10,000-character pattern under required → 400, not a 200 without a call", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [{ type: "function", function: { name: "f", parameters: longPattern } }], tool_choice: "required", max_tokens: 256, stream: true });
    expect(res.status).toBe(400);
    expect(["budget_too_small", "schema_too_large"]).toContain(res.json.error.code);
  });

  test("a named tool on /v1/responses and Anthropic any with max_tokens 16 are refused too", async () => {
    const named = await post(`${server.url}/v1/responses`, { model: "m", input: "hi", tools: [{ type: "function", name: "f", parameters: params }], tool_choice: { type: "function", name: "f" }, max_output_tokens: 16 });
    expectOpenAIError(named, 400, "budget_too_small", "max_output_tokens");
    const anthropic = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 16, messages: user, tools: [{ name: "f", input_schema: params }], tool_choice: { type: "any" } });
    expectAnthropicError(anthropic, 400, "invalid_request_error");
  });

  test("the same tools with room for the call are served with a call", async () => {
    const res = await post(`${server.url}/v1/responses`, { model: "m", input: "hi", tools: [{ type: "function", name: "f", parameters: params }], tool_choice: "required", max_output_tokens: 128 });
    expect(res.status).toBe(200);
    expect(res.json.output.some((item: { type: string }) => item.type === "function_call")).toBe(true);
  });
});
