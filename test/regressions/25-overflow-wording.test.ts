// Issue 25: Claude Code defaults max_tokens to 32,000 on a 19,865-token prompt, and retries with a smaller one only on
// Anthropic's own wording, `input length and \`max_tokens\` exceed context limit: A + B > C, decrease input length
// or \`max_tokens\` and try again`; qwen-code sends 32,768. qtc answered both in words no client recognises. Now
// /v1/messages refuses in Anthropic's wording (what Claude Code handles), and the OpenAI routes clamp and say so
// (Codex and qwen-code fail on `context_length_exceeded` instead of retrying). A prompt over the context is refused
// in each API's wording.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime, type FakeRuntime } from "../server/fake-runtime.js";
import { expectAnthropicError, expectOpenAIError, post, type Running, start } from "../server/helpers.js";

const CONTEXT = 32_768;
let prompt = 19_865;
let fake: FakeRuntime;
let server: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  fake.settings = { contextSize: CONTEXT };
  fake.countTokens = () => prompt;
  server = await start({ runtime: fake });
});
afterAll(() => server.app.close());

const user = [{ role: "user", content: "hi" }];

describe("max_tokens above what the context leaves", () => {
  test.each([false, true])("/v1/messages (stream %s): 400 in Anthropic's exact overflow wording", async (stream) => {
    prompt = 19_865;
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 32_000, messages: user, stream });
    expectAnthropicError(res, 400, "invalid_request_error");
    expect(res.json.error.message).toBe("input length and `max_tokens` exceed context limit: 19865 + 32000 > 32768, decrease input length or `max_tokens` and try again");
  });

  test("/v1/messages with a max_tokens that fits is served as asked", async () => {
    prompt = 19_865;
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 12_903, messages: user });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(12_903);
  });

  test("/v1/chat/completions: clamped to what the context leaves, and the response says so", async () => {
    prompt = 19_865;
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", max_tokens: 32_768, messages: user });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(CONTEXT - 19_865);
    expect(res.json.qtc.notices.join(" ")).toMatch(/max_tokens 32768 is more than the 12903 tokens/);
    expect(JSON.parse(res.headers["x-qtc-notices"]!)).toEqual(res.json.qtc.notices);
  });

  test("/v1/responses streamed: clamped, and the stream's headers say so", async () => {
    prompt = 19_865;
    const res = await post(`${server.url}/v1/responses`, { model: "m", max_output_tokens: 30_000, input: "hi", stream: true });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(CONTEXT - 19_865);
    expect(res.headers["x-qtc-notices"]).toMatch(/max_output_tokens 30000 is more than/);
  });
});

describe("a prompt over the context", () => {
  test("/v1/messages: Anthropic's `prompt is too long` wording (Claude Code compacts on it)", async () => {
    prompt = 40_000;
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 100, messages: user });
    expectAnthropicError(res, 400, "invalid_request_error");
    expect(res.json.error.message).toBe("prompt is too long: 40000 tokens > 32768 maximum");
  });

  test("/v1/chat/completions: context_length_exceeded naming messages", async () => {
    prompt = 40_000;
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
    expectOpenAIError(res, 400, "context_length_exceeded", "messages");
    expect(res.json.error.message).toMatch(/^This model's maximum context length is 32768 tokens\. However, your messages resulted in 40000 tokens\./);
  });
});
