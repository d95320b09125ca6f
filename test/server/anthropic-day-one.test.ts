// What Anthropic clients rely on beyond a single message: count_tokens, the prompt's tokens in message_start,
// and ping events on a long stream (the toolRunner is in test/regressions/18-server-toolrunner-thread.test.ts).

import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, test } from "vitest";
import { fakeRuntime } from "./fake-runtime.js";
import { expectAnthropicError, parseSse, post, READ_FILE_ANTHROPIC, type Running, start } from "./helpers.js";

const user = [{ role: "user" as const, content: "hi" }];
let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

describe("count_tokens and usage", () => {
  test("count_tokens answers the prompt's tokens, which message_start and the final usage repeat", async () => {
    server = await start({ runtime: fakeRuntime() });
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "x" });
    const counted = await anthropic.messages.countTokens({ model: "m", messages: user, tools: [READ_FILE_ANTHROPIC] });
    expect(counted).toEqual({ input_tokens: 10 });
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 16, messages: user, stream: true });
    const frames = parseSse(res.text);
    expect(frames[0]!.data.message.usage.input_tokens).toBe(10);
    expect(frames.find((f) => f.event === "message_delta")!.data.usage.input_tokens).toBe(10);
  });

  test("count_tokens refuses what messages would refuse, in Anthropic's shape", async () => {
    server = await start({ runtime: fakeRuntime() });
    expectAnthropicError(await post(`${server.url}/v1/messages/count_tokens`, { model: "m", messages: [{ role: "user", content: 7 }] }), 400, "invalid_request_error");
    expectAnthropicError(await post(`${server.url}/v1/messages/count_tokens`, { model: "m" }), 400, "invalid_request_error");
  });

  test("without a runtime that counts, count_tokens is a 404", async () => {
    const runtime = fakeRuntime();
    delete runtime.countTokens;
    server = await start({ runtime });
    expectAnthropicError(await post(`${server.url}/v1/messages/count_tokens`, { model: "m", messages: user }), 404, "not_found_error");
  });
});

describe("ping", () => {
  test("a stream sends a ping after message_start and whenever it has been silent for the interval", async () => {
    server = await start({ runtime: fakeRuntime({ delayMs: 200 }), pingIntervalMs: 10 });
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 16, messages: user, stream: true });
    const events = parseSse(res.text).map((f) => f.event);
    expect(events.slice(0, 2)).toEqual(["message_start", "ping"]);
    expect(events.filter((e) => e === "ping").length).toBeGreaterThan(2);
    expect(events.at(-1)).toBe("message_stop");
  });
});
