// Issue 25: `qtc serve --max-tokens-cap N` promises that every turn's output is clamped to N "whatever a request
// asks". CI caught Claude Code 2.1.197 sending max_tokens 64,000 on some turns: the request was refused for being
// over the server's limit (32,768) before the cap could clamp it, so the agent's turn failed; and a raw-prompt
// completion was never clamped at all. Now, with a cap, any ask is clamped to it on every route and the response
// says so; without one, an ask above the limit is still refused.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime, type FakeRuntime } from "../server/fake-runtime.js";
import { expectAnthropicError, expectOpenAIError, post, type Running, start } from "../server/helpers.js";

const CAP = 512;
const user = [{ role: "user", content: "hi" }];
let fake: FakeRuntime;
let capped: Running;
let uncapped: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  fake.settings = { contextSize: 32_768 };
  fake.countTokens = () => 19_865;
  capped = await start({ runtime: fake, maxTokensCap: CAP });
  uncapped = await start({ runtime: fake });
});
afterAll(async () => {
  await capped.app.close();
  await uncapped.app.close();
});

describe("with --max-tokens-cap, an ask above the server's limit is clamped to the cap", () => {
  test.each([false, true])("/v1/messages max_tokens 64000 (stream %s): served with the cap, and said", async (stream) => {
    const res = await post(`${capped.url}/v1/messages`, { model: "m", max_tokens: 64_000, messages: user, stream });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(CAP);
    expect(res.headers["x-qtc-notices"]).toMatch(/max_tokens 64000 is more than this server's cap of 512/);
  });

  test("/v1/chat/completions max_completion_tokens 64000", async () => {
    const res = await post(`${capped.url}/v1/chat/completions`, { model: "m", max_completion_tokens: 64_000, messages: user });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(CAP);
    expect(res.json.qtc.notices.join(" ")).toMatch(/max_completion_tokens 64000 is more than this server's cap of 512/);
  });

  test("/v1/responses max_output_tokens 64000", async () => {
    const res = await post(`${capped.url}/v1/responses`, { model: "m", max_output_tokens: 64_000, input: "hi" });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(CAP);
  });

  test("/v1/completions (a raw prompt) is clamped too", async () => {
    const res = await post(`${capped.url}/v1/completions`, { model: "m", max_tokens: 2_000, prompt: "hi" });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(CAP);
    expect(res.headers["x-qtc-notices"]).toMatch(/max_tokens 2000 is more than this server's cap of 512/);
  });

  test("an ask under the cap is served as asked", async () => {
    const res = await post(`${capped.url}/v1/messages`, { model: "m", max_tokens: 100, messages: user });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(100);
    expect(res.headers["x-qtc-notices"]).toBeUndefined();
  });
});

describe("without a cap, an ask above the server's limit is refused, naming the field", () => {
  test("/v1/messages", async () => {
    const res = await post(`${uncapped.url}/v1/messages`, { model: "m", max_tokens: 64_000, messages: user });
    expectAnthropicError(res, 400, "invalid_request_error");
    expect(res.json.error.message).toMatch(/max_tokens is 64000; this server allows at most 32768/);
  });

  test("/v1/chat/completions", async () => {
    const res = await post(`${uncapped.url}/v1/chat/completions`, { model: "m", max_tokens: 64_000, messages: user });
    expectOpenAIError(res, 400, "invalid_request", "max_tokens");
  });
});
