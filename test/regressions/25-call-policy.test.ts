// Issue 25: a client that always sends `tool_choice: "auto"` gets no call from a small model that never opens one,
// and `qtc serve` had no way to apply the call policies bench/run/agent have. `qtc serve --call-policy` (and the
// `x-qtc-call-policy` header per request) now applies them to requests that carry tools.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { finishAsAnswer } from "../../src/server/call-policy.js";
import type { GenerateResult } from "../../src/runtime/types.js";
import { fakeRuntime, type FakeRuntime } from "../server/fake-runtime.js";
import { expectOpenAIError, post, type Running, start } from "../server/helpers.js";

let fake: FakeRuntime;
let server: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  server = await start({ runtime: fake, callPolicy: "required-first" });
});
afterAll(() => server.app.close());

const tool = { type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
const chat = (messages: unknown[], headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  post(`${server.url}/v1/chat/completions`, { model: "m", messages, tools: [tool], tool_choice: "auto", max_tokens: 64, ...extra }, headers);
const last = () => fake.requests.at(-1)!;

describe("call policies on the server", () => {
  test("required-first: the first turn of a conversation is required, later turns keep the client's auto", async () => {
    const first = await chat([{ role: "user", content: "read a" }]);
    expect(first.status).toBe(200);
    expect(last().toolChoice).toBe("required");
    expect(first.json.choices[0].finish_reason).toBe("tool_calls");
    const later = await chat([
      { role: "user", content: "read a" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "x" },
    ]);
    expect(later.status).toBe(200);
    expect(last().toolChoice).toBe("auto");
  });

  test("the header overrides the server's policy for one request; none and a named tool are left alone", async () => {
    await chat([{ role: "user", content: "hi" }], { "x-qtc-call-policy": "auto" });
    expect(last().toolChoice).toBe("auto");
    await chat([{ role: "user", content: "hi" }], { "x-qtc-call-policy": "open-bias" });
    expect([last().toolChoice, last().logitBias]).toEqual(["auto", { 151657: 5 }]);
    await chat([{ role: "user", content: "hi" }], {}, { tool_choice: "none" });
    expect(last().toolChoice).toBe("none");
  });

  test("finish-tool: a finish tool joins and a call is required; a request without tools is untouched", async () => {
    await chat([{ role: "user", content: "hi" }], { "x-qtc-call-policy": "finish-tool" });
    expect(last().toolChoice).toBe("required");
    expect(last().tools!.map((t) => ("function" in t ? t.function.name : t.name))).toEqual(["read_file", "finish"]);
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }, { "x-qtc-call-policy": "finish-tool" });
    expect(last().tools).toBeUndefined();
  });

  test("finish-tool: the finish call comes back as the answer text, not as a call", () => {
    const call = { id: "x", name: "finish", arguments: '{"answer":"Done."}', parsedArguments: { answer: "Done." }, format: "hermes" as const, raw: "", start: 0, end: 0 };
    const result = { content: "", toolCalls: [call], finishReason: "tool_calls" } as unknown as GenerateResult;
    const answered = finishAsAnswer(result, "finish");
    expect([answered.content, answered.toolCalls, answered.finishReason]).toEqual(["Done.", [], "stop"]);
  });

  test("a bad header value is a 400 naming the header", async () => {
    expectOpenAIError(await chat([{ role: "user", content: "hi" }], { "x-qtc-call-policy": "always" }), 400, "invalid_request", "x-qtc-call-policy");
  });
});
