// What Anthropic clients rely on beyond a single message: count_tokens, the prompt's tokens in message_start,
// ping events on a long stream, and the SDK's beta toolRunner over three turns.

import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { afterEach, describe, expect, test } from "vitest";
import type { ToolCall } from "../../src/parse/types.js";
import type { GenerateEvent, GenerateRequest, GenerateResult } from "../../src/runtime/types.js";
import type { ServerRuntime } from "../../src/server/index.js";
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
    server = await start({ runtime: fakeRuntime({ delayMs: 60 }), pingIntervalMs: 25 });
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 16, messages: user, stream: true });
    const events = parseSse(res.text).map((f) => f.event);
    expect(events.slice(0, 2)).toEqual(["message_start", "ping"]);
    expect(events.filter((e) => e === "ping").length).toBeGreaterThan(2);
    expect(events.at(-1)).toBe("message_stop");
  });
});

/** A runtime that calls `get_weather` until it has seen two results, then answers in text. */
function threeTurnRuntime(): ServerRuntime & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  async function* stream(request: GenerateRequest): AsyncGenerator<GenerateEvent> {
    requests.push(request);
    const results = request.messages.filter((m) => m.role === "tool").length;
    const calls: ToolCall[] = [];
    let content = "";
    if (results < 2) {
      const args = JSON.stringify({ city: results === 0 ? "Paris" : "Rome" });
      const call: ToolCall = { id: `t${results}`, name: "get_weather", arguments: args, parsedArguments: JSON.parse(args), format: "hermes", raw: "", start: 0, end: 0 };
      calls.push(call);
      yield { type: "tool-call-start", index: 0, id: call.id, name: call.name };
      yield { type: "tool-call", index: 0, call };
    } else {
      content = "Both are sunny.";
      yield { type: "text-delta", text: content };
    }
    const result: GenerateResult = {
      content, reasoning: null, toolCalls: calls, errors: [], finishReason: calls.length ? "tool_calls" : "stop",
      usage: { promptTokens: 5, completionTokens: 5, forcedTokens: 0 },
      timings: { timeToFirstTokenMs: 1, decodeTokensPerSecond: 1, grammarMs: 0, totalMs: 1 },
      diagnostics: { detected: calls.length, accepted: calls.length, rejected: {}, emitted: calls.length, notes: [] },
      raw: content, tokens: [], mode: "constrained", format: "hermes",
    };
    yield { type: "done", result };
  }
  return {
    requests,
    modelInfo: { name: "three-turns" },
    stream,
    async generate(request) {
      for await (const event of stream(request)) if (event.type === "done") return event.result;
      throw new Error("no result");
    },
  };
}

describe("the SDK's beta toolRunner", () => {
  for (const streamed of [false, true]) {
    test(`runs three turns: two calls with their results sent back, then the answer${streamed ? " (streamed)" : ""}`, async () => {
      const runtime = threeTurnRuntime();
      server = await start({ runtime });
      const anthropic = new Anthropic({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
      const seen: string[] = [];
      const weather = betaTool({
        name: "get_weather",
        description: "The weather in a city",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
        run: async ({ city }) => {
          seen.push(city);
          return `${city}: sunny`;
        },
      });
      const runner = anthropic.beta.messages.toolRunner({ model: "m", max_tokens: 64, messages: [{ role: "user", content: "Weather in Paris and Rome?" }], tools: [weather], max_iterations: 5, ...(streamed ? { stream: true as const } : {}) });
      const final = await runner.runUntilDone();
      expect(seen).toEqual(["Paris", "Rome"]);
      expect(final.content).toEqual([expect.objectContaining({ type: "text", text: "Both are sunny." })]);
      expect(runtime.requests).toHaveLength(3);
      const last = runtime.requests[2]!.messages;
      expect(last.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["Paris: sunny", "Rome: sunny"]);
    });
  }
});
