// Issue 18: the Anthropic SDK's `beta.messages.toolRunner` failed on its second turn. It sends `thread: {type:
// "continue", previous_message_id}` with only the new messages; qtc keeps no threads and answers that with the
// `thread_not_found` error code, on which the SDK replays the whole history. Three turns, streamed and not.

import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { afterEach, describe, expect, test } from "vitest";
import type { ToolCall } from "../../src/parse/types.js";
import type { GenerateEvent, GenerateRequest, GenerateResult } from "../../src/runtime/types.js";
import type { ServerRuntime } from "../../src/server/index.js";
import { expectAnthropicError, post, type Running, start } from "../server/helpers.js";

let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
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

  test("a continue is refused with thread_not_found before anything is generated; a create is a plain request", async () => {
    const runtime = threeTurnRuntime();
    server = await start({ runtime });
    const messages = [{ role: "user", content: "hi" }];
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 8, messages, thread: { type: "continue", previous_message_id: "msg_1" } });
    expect(res.status).toBe(404);
    expect(res.json.error.details).toEqual({ error_code: "thread_not_found" });
    expect(runtime.requests).toHaveLength(0);
    expect((await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 8, messages, thread: { type: "create" } })).status).toBe(200);
    expectAnthropicError(await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 8, messages, thread: { type: "fork" } }), 400, "invalid_request_error");
  });
});
