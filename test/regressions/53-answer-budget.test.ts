// Issue 53 (item 6): an answer constraint whose cheapest answer does not fit max_tokens got a 200 with an empty
// answer (regex, JSON schema, grammar), while docs/server.md promised `budget_too_small`, as tool calls get. Now
// every route refuses it with a 400 naming the budget field and both figures (the least the answer takes, the
// budget), and a budget that holds the answer is still served.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectAnthropicError, expectOpenAIError, post } from "../server/helpers.js";
import { type ServeCli, startServeCli } from "../helpers/cli.js";

let baseURL = "";
let server: ServeCli | undefined;

beforeAll(async () => {
  server = await startServeCli(["--context-size", "1024"]);
  baseURL = server.baseURL;
}, 180_000);

afterAll(() => server?.stop());

const MESSAGES = [{ role: "user", content: "Give the code." }];
// Three letters, a dash and four digits: each digit is a token of its own, so at least 5 tokens.
const REGEX = "[A-Z]{3}-[0-9]{4}";

describe("issue 53: an answer constraint under too small a budget is budget_too_small on every route", () => {
  test("chat: a regex answer under max_tokens 3 (the issue's reproduction), streamed and not", async () => {
    for (const stream of [false, true]) {
      const res = await post(`${baseURL}/v1/chat/completions`, { model: "tiny", messages: MESSAGES, guided_regex: REGEX, max_tokens: 3, seed: 1, stream });
      expectOpenAIError(res, 400, "budget_too_small", "max_tokens");
      expect(res.json.error.message).toMatch(/maxTokens 3 .*at least 5 tokens/);
    }
  });

  test("chat: guided_choice, guided_grammar and response_format json_schema under max_tokens 2", async () => {
    const fields: Record<string, unknown>[] = [
      { guided_choice: ["2024-01-01", "2025-12-31"] },
      { guided_grammar: 'root ::= "id-" [0-9] [0-9] [0-9]' },
      { response_format: { type: "json_schema", json_schema: { name: "r", schema: { type: "object", properties: { verdict: { type: "string" }, score: { type: "integer" } }, required: ["verdict", "score"] } } } },
      { structured_outputs: { regex: REGEX } },
    ];
    for (const field of fields) {
      const res = await post(`${baseURL}/v1/chat/completions`, { model: "tiny", messages: MESSAGES, max_completion_tokens: 2, seed: 1, ...field });
      expectOpenAIError(res, 400, "budget_too_small", "max_completion_tokens");
    }
  });

  test("completions, Responses and Anthropic messages (x-qtc-constraint) refuse it too", async () => {
    const completions = await post(`${baseURL}/v1/completions`, { model: "tiny", prompt: "Code: ", guided_regex: REGEX, max_tokens: 3, seed: 1 });
    expectOpenAIError(completions, 400, "budget_too_small", "max_tokens");
    const responses = await post(`${baseURL}/v1/responses`, { model: "tiny", input: "Give the code.", text: { format: { type: "json_schema", name: "r", schema: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"], additionalProperties: false } } }, max_output_tokens: 3 });
    expectOpenAIError(responses, 400, "budget_too_small", "max_output_tokens");
    const messages = await post(`${baseURL}/v1/messages`, { model: "tiny", messages: MESSAGES, max_tokens: 3, "x-qtc-constraint": { regex: REGEX } });
    expectAnthropicError(messages, 400, "invalid_request_error");
    expect(messages.json.error.message).toMatch(/at least 5 tokens/);
  });

  test("a budget that holds the answer is served, and the answer matches", async () => {
    const res = await post(`${baseURL}/v1/chat/completions`, { model: "tiny", messages: MESSAGES, guided_regex: REGEX, max_tokens: 32, seed: 1 });
    expect(res.status, res.text).toBe(200);
    expect(res.json.choices[0].message.content).toMatch(/^[A-Z]{3}-[0-9]{4}$/);
  });

  test("with a tool the model may call instead, the answer's budget is not refused", async () => {
    const tool = { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } };
    const res = await post(`${baseURL}/v1/chat/completions`, { model: "tiny", messages: MESSAGES, tools: [tool], tool_choice: "auto", guided_regex: REGEX, max_tokens: 5, seed: 1 });
    expect(res.status, res.text).toBe(200);
  });
});
