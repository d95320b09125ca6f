// Issue 25: Codex sends no `max_output_tokens`; qtc's default of 1,024 ended every turn `incomplete`, and Codex fails
// such a turn. A missing max_output_tokens / max_tokens now means what the context leaves after the prompt.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime, type FakeRuntime } from "../server/fake-runtime.js";
import { post, type Running, start } from "../server/helpers.js";

let fake: FakeRuntime;
let server: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  fake.settings = { contextSize: 32_768 };
  fake.countTokens = () => 9_000;
  server = await start({ runtime: fake });
});
afterAll(() => server.app.close());

describe("no max_output_tokens", () => {
  test.each([false, true])("/v1/responses (stream %s): the turn may use what the context leaves", async (stream) => {
    const res = await post(`${server.url}/v1/responses`, { model: "gpt-5-codex", input: "hi", stream });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(32_768 - 9_000);
    if (!stream) expect(res.json.max_output_tokens).toBe(32_768 - 9_000);
  });

  test("/v1/chat/completions without max_tokens: the same", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.maxTokens).toBe(32_768 - 9_000);
  });

  test("the operator's --max-tokens still wins when given", async () => {
    const own = await start({ runtime: fake, defaultMaxTokens: 2048 });
    try {
      const res = await post(`${own.url}/v1/responses`, { model: "m", input: "hi" });
      expect(res.status).toBe(200);
      expect(fake.requests.at(-1)!.maxTokens).toBe(2048);
    } finally {
      await own.app.close();
    }
  });
});
