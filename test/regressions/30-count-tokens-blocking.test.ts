// Issue 30, item 3 (and the prompt half of 11): 8 concurrent 4 MB bodies to /v1/messages/count_tokens held the
// event loop (`/health` took up to 5 s) because each prompt was tokenized in one synchronous call. The route's
// body is bounded (1 MiB by default), and prompts on every route are tokenized in slices with the event loop let
// go between them, with exactly the tokens of one call.

import { describe, expect, test } from "vitest";
import { SERVER_DEFAULTS } from "../../src/server/index.js";
import { useTinyServer } from "../helpers/tiny-server.js";
import { healthPoller } from "../helpers/health-poll.js";
import { expectAnthropicError, post } from "../server/helpers.js";

const server = useTinyServer();

const HEADERS = { "anthropic-version": "2023-06-01" };
const prose = (bytes: number, salt: number) => `Request ${salt}. ${"The quick brown fox jumps over the lazy dog.\nAnd then it ran away, <tool_call> spelled in text. ".repeat(Math.ceil(bytes / 96))}`.slice(0, bytes);

describe("count_tokens never holds the event loop", () => {
  test("a body over the route's bound (4 MB) is a 413, before any tokenizing", async () => {
    const res = await post(`${server.url}/v1/messages/count_tokens`, { model: "m", messages: [{ role: "user", content: prose(4 * 1024 * 1024, 0) }] }, HEADERS);
    expectAnthropicError(res, 413, "request_too_large");
    expect(SERVER_DEFAULTS.countTokensBodyLimit).toBe(1024 * 1024);
  });

  test("4 concurrent 512 KiB bodies are all counted while /health answers within 1 s", async () => {
    const health = healthPoller(server.url);
    const answers = await Promise.all(
      [1, 2, 3, 4].map((i) => post(`${server.url}/v1/messages/count_tokens`, { model: "m", messages: [{ role: "user", content: prose(512 * 1024, i) }] }, HEADERS)),
    );
    const slowest = await health.stop();
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.json.input_tokens).toBeGreaterThan(50_000);
    }
    expect(slowest, "slowest /health answer (ms)").toBeLessThan(1000);
  }, 120_000);

  test("slices change no token: the sliced count equals one synchronous tokenization", async () => {
    const request = { messages: [{ role: "user" as const, content: prose(300 * 1024, 9) }, { role: "assistant" as const, content: `x${"\n".repeat(3)}Word  two` }] };
    expect(await server.runtime.countTokensSliced!(request)).toBe(server.runtime.countTokens!(request));
  }, 60_000);
});
