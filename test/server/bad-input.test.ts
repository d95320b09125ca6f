// Bad input never crashes the server: each case gets 400/401/404/413 in the API's own error shape, and the
// server answers the next good request. HTTP layer only (a scripted runtime); test/server/real-runtime.test.ts
// repeats the schema case against the real runtime.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime } from "./fake-runtime.js";
import { expectAnthropicError, expectOpenAIError, post, READ_FILE_ANTHROPIC, READ_FILE_OPENAI, type Running, start } from "./helpers.js";

let server: Running;
const BODY_LIMIT = 64 * 1024;
const user = [{ role: "user", content: "hi" }];

beforeAll(async () => {
  server = await start({ runtime: fakeRuntime(), bodyLimit: BODY_LIMIT, parallel: 2 });
});
afterAll(async () => {
  await server.app.close();
});

async function openAIStillServes(): Promise<void> {
  const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: "required" });
  expect(res.status).toBe(200);
  expect(res.json.choices[0].message.tool_calls[0].function.name).toBe("read_file");
}

async function anthropicStillServes(): Promise<void> {
  const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 32, messages: user });
  expect(res.status).toBe(200);
  expect(res.json.content[0].type).toBe("text");
}

const badSchemaTool = { type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { type: "no-such-type" } } } } };

/** [name, body (string = raw), status, code, param]. */
const OPENAI_CASES: Array<[string, unknown, number, string, string | null]> = [
  ["malformed JSON", '{"model": "m", "messages": [', 400, "invalid_request", null],
  ["empty body", "", 400, "invalid_request", null],
  ["a JSON array body", "[1, 2]", 400, "invalid_request", null],
  ["messages missing", { model: "m" }, 400, "invalid_request", "messages"],
  ["messages not an array", { model: "m", messages: "hi" }, 400, "invalid_request", "messages"],
  ["messages empty", { model: "m", messages: [] }, 400, "invalid_request", "messages"],
  ["max_tokens a string", { model: "m", messages: user, max_tokens: "64" }, 400, "invalid_request", "max_tokens"],
  ["max_tokens zero", { model: "m", messages: user, max_tokens: 0 }, 400, "invalid_request", "max_tokens"],
  ["max_tokens over the server limit", { model: "m", messages: user, max_tokens: 10_000_000 }, 400, "invalid_request", "max_tokens"],
  ["temperature out of range", { model: "m", messages: user, temperature: 3 }, 400, "invalid_request", "temperature"],
  ["stream not a boolean", { model: "m", messages: user, stream: "yes" }, 400, "invalid_request", "stream"],
  ["unknown role", { model: "m", messages: [{ role: "robot", content: "x" }] }, 400, "invalid_request", "messages[0].role"],
  ["content a number", { model: "m", messages: [{ role: "user", content: 5 }] }, 400, "invalid_request", "messages[0].content"],
  ["tool message without tool_call_id", { model: "m", messages: [...user, { role: "tool", content: "x" }] }, 400, "invalid_request", "messages[1].tool_call_id"],
  ["an image part", { model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] }, 400, "unsupported_parameter", "messages[0].content[0].type"],
  ["unknown tool in tool_choice", { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: { type: "function", function: { name: "nope" } } }, 400, "invalid_tool_choice", "tool_choice.function.name"],
  ["tool_choice an unknown word", { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: "always" }, 400, "invalid_tool_choice", "tool_choice"],
  ["required without tools", { model: "m", messages: user, tool_choice: "required" }, 400, "invalid_tool_choice", "tool_choice"],
  ["a tool schema that does not compile", { model: "m", messages: user, tools: [badSchemaTool] }, 400, "invalid_schema", "tools"],
  ["a tool schema that is not an object schema", { model: "m", messages: user, tools: [{ type: "function", function: { name: "f", parameters: { type: "string" } } }] }, 400, "invalid_tools", "tools"],
  ["a tool without a name", { model: "m", messages: user, tools: [{ type: "function", function: { parameters: {} } }] }, 400, "invalid_request", "tools[0].function.name"],
  ["two tools with one name", { model: "m", messages: user, tools: [READ_FILE_OPENAI, READ_FILE_OPENAI] }, 400, "invalid_request", "tools[1]"],
  ["a non-function tool", { model: "m", messages: user, tools: [{ type: "custom", custom: { name: "x" } }] }, 400, "unsupported_parameter", "tools[0].type"],
  ["n: 9 (over 8)", { model: "m", messages: user, n: 9 }, 400, "unsupported_parameter", "n"],
  ["top_logprobs over 20", { model: "m", messages: user, logprobs: true, top_logprobs: 21 }, 400, "invalid_request", "top_logprobs"],
  ["stop not strings", { model: "m", messages: user, stop: [1] }, 400, "invalid_request", "stop"],
  ["stop with too many sequences", { model: "m", messages: user, stop: Array.from({ length: 17 }, (_, i) => `s${i}`) }, 400, "invalid_request", "stop"],
  ["a stop sequence too long", { model: "m", messages: user, stop: ["x".repeat(257)] }, 400, "invalid_request", "stop[0]"],
  ["frequency_penalty", { model: "m", messages: user, frequency_penalty: 0.5 }, 400, "unsupported_parameter", "frequency_penalty"],
  ["functions (deprecated)", { model: "m", messages: user, functions: [{ name: "f" }] }, 400, "unsupported_parameter", "functions"],
  ["a response_format schema that does not compile", { model: "m", messages: user, response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object", properties: { a: { type: "no-such-type" } } } } } }, 400, "invalid_schema", "response_format.json_schema.schema"],
  ["response_format json_schema without a name", { model: "m", messages: user, response_format: { type: "json_schema", json_schema: { schema: { type: "object" } } } }, 400, "invalid_request", "response_format.json_schema.name"],
  ["response_format of an unknown type", { model: "m", messages: user, response_format: { type: "yaml" } }, 400, "invalid_request", "response_format.type"],
  ["stream_options without stream", { model: "m", messages: user, stream_options: { include_usage: true } }, 400, "invalid_request", "stream_options"],
  ["reasoning_effort unknown", { model: "m", messages: user, reasoning_effort: "max" }, 400, "invalid_request", "reasoning_effort"],
];

describe("OpenAI bad input", () => {
  test.each(OPENAI_CASES)("%s → %i %s", async (_name, body, status, code, param) => {
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, body), status, code, param);
    await openAIStillServes();
  });

  test("a body over the size limit → 413", async () => {
    const big = { model: "m", messages: [{ role: "user", content: "x".repeat(BODY_LIMIT + 10) }] };
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, big), 413, "request_too_large", null);
    await openAIStillServes();
  });

  test("a non-JSON content type → 400", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, "hello", { "content-type": "text/plain" });
    expectOpenAIError(res, 400, "invalid_request", null);
    await openAIStillServes();
  });

  test("an unknown route → 404", async () => {
    expectOpenAIError(await post(`${server.url}/v1/embeddings`, { input: "x" }), 404, "not_found", null);
    await openAIStillServes();
  });

  test("a bad streamed request gets a JSON error, not an event stream", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, stream: true, n: 3 });
    expectOpenAIError(res, 400, "unsupported_parameter", "n");
  });
});

const A = (extra: Record<string, unknown>) => ({ model: "m", max_tokens: 32, messages: user, ...extra });

/** [name, body, status, error type]. */
const ANTHROPIC_CASES: Array<[string, unknown, number, string]> = [
  ["malformed JSON", '{"model": "m", "max_tokens": 3', 400, "invalid_request_error"],
  ["max_tokens missing", { model: "m", messages: user }, 400, "invalid_request_error"],
  ["max_tokens a string", A({ max_tokens: "32" }), 400, "invalid_request_error"],
  ["temperature over 1", A({ temperature: 1.5 }), 400, "invalid_request_error"],
  ["a tool role inside messages", A({ messages: [{ role: "tool", content: "x" }] }), 400, "invalid_request_error"],
  ["content a number", A({ messages: [{ role: "user", content: 7 }] }), 400, "invalid_request_error"],
  ["an image block", A({ messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }] }] }), 400, "invalid_request_error"],
  ["tool_result without tool_use_id", A({ messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] }), 400, "invalid_request_error"],
  ["unknown tool in tool_choice", A({ tools: [READ_FILE_ANTHROPIC], tool_choice: { type: "tool", name: "nope" } }), 400, "invalid_request_error"],
  ["tool_choice of an unknown type", A({ tools: [READ_FILE_ANTHROPIC], tool_choice: { type: "sometimes" } }), 400, "invalid_request_error"],
  ["any without tools", A({ tool_choice: { type: "any" } }), 400, "invalid_request_error"],
  ["a tool schema that does not compile", A({ tools: [{ name: "f", input_schema: { type: "object", properties: { a: { type: "no-such-type" } } } }] }), 400, "invalid_request_error"],
  ["a tool without input_schema", A({ tools: [{ name: "f" }] }), 400, "invalid_request_error"],
  ["a document with a PDF source", A({ messages: [{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "AA==" } }] }] }), 400, "invalid_request_error"],
  ["stop_sequences too many", A({ stop_sequences: Array.from({ length: 17 }, (_, i) => `s${i}`) }), 400, "invalid_request_error"],
  ["thinking budget over max_tokens", A({ thinking: { type: "enabled", budget_tokens: 64 } }), 400, "invalid_request_error"],
];

describe("Anthropic bad input", () => {
  test.each(ANTHROPIC_CASES)("%s → %i %s", async (_name, body, status, type) => {
    expectAnthropicError(await post(`${server.url}/v1/messages`, body), status, type);
    await anthropicStillServes();
  });

  test("a body over the size limit → 413 request_too_large", async () => {
    const big = A({ messages: [{ role: "user", content: "x".repeat(BODY_LIMIT + 10) }] });
    expectAnthropicError(await post(`${server.url}/v1/messages`, big), 413, "request_too_large");
    await anthropicStillServes();
  });

  test("an unknown route from an Anthropic client → 404 not_found_error", async () => {
    const res = await post(`${server.url}/v1/complete`, { prompt: "x" }, { "anthropic-version": "2023-06-01" });
    expectAnthropicError(res, 404, "not_found_error");
    await anthropicStillServes();
  });
});
