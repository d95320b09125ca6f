// Every bad thing an upstream can do gives the client a clear API error (an upstream_* code, a gateway status)
// and the next request is served: a fake llama-server (node:http on 127.0.0.1) behind qtc's server, switched
// between behaviours; and the plain OpenAI engine turning raw `<tool_call>` text into structured tool_calls.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createLlamaServerRuntime, createOpenAIChatRuntime, NO_GRAMMAR_NOTE } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { expectOpenAIError, post, start, type Running } from "../server/helpers.js";
import { CALL_TEXT, startFakeUpstream, type FakeUpstream } from "./fake-upstream.js";

const TOOLS = [{ type: "function", function: { name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false } } }];
const chat = (extra: Record<string, unknown> = {}) => ({ model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: TOOLS, tool_choice: "required", max_tokens: 64, ...extra });

describe("llama-server engine: bad upstreams", () => {
  let fake: FakeUpstream;
  let runtime: Runtime;
  let server: Running;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    runtime = await createLlamaServerRuntime(fake.url, { limits: { idleTimeoutMs: 500, timeoutMs: 5000 } });
    server = await start({ runtime, onInternalError: () => undefined } as never);
  });
  afterAll(async () => {
    await server?.app.close();
    await fake?.stop();
  });
  beforeEach(() => {
    fake.behaviour = "ok";
  });

  const served = async () => {
    fake.behaviour = "ok";
    const res = await post(`${server.url}/v1/chat/completions`, chat());
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.tool_calls[0].function).toEqual({ name: "read_file", arguments: '{"path":"a.ts"}' });
  };

  test("a good upstream: the call arrives structured, the grammar went out and came back", async () => {
    await served();
  });

  test("refuses the connection → 503 upstream_unavailable, then served again", async () => {
    await fake.stop();
    try {
      expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat()), 503, "upstream_unavailable");
    } finally {
      await fake.start();
    }
    await served();
  });

  test("answers 500 → 502 upstream_error, then served again", async () => {
    fake.behaviour = "500";
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat()), 502, "upstream_error");
    await served();
  });

  test("never answers → 504 upstream_timeout, then served again", async () => {
    fake.behaviour = "hang";
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat()), 504, "upstream_timeout");
    await served();
  });

  test("streams garbage → 502 upstream_error, then served again", async () => {
    fake.behaviour = "garbage";
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat()), 502, "upstream_error");
    await served();
  });

  test("drops the grammar → 502 upstream_grammar_dropped (the unconstrained output is refused), then served again", async () => {
    fake.behaviour = "drop-grammar";
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat()), 502, "upstream_grammar_dropped");
    await served();
  });

  test("dies mid-stream → the stream ends with an upstream_error event, then served again", async () => {
    fake.behaviour = "cut";
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(chat({ stream: true })) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"code":"upstream_error"');
    await served();
  });
});

describe("openai engine: a chat endpoint that leaves <tool_call> text in content", () => {
  let fake: FakeUpstream;
  let server: Running;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    const runtime = await createOpenAIChatRuntime(fake.url);
    server = await start({ runtime, onInternalError: () => undefined } as never);
  });
  afterAll(async () => {
    await server?.app.close();
    await fake?.stop();
  });

  test("the client receives structured tool_calls, and the result says no grammar held it", async () => {
    fake.chatText = `Let me look.\n${CALL_TEXT}`;
    const res = await post(`${server.url}/v1/chat/completions`, chat({ tool_choice: "auto" }));
    expect(res.status).toBe(200);
    const message = res.json.choices[0].message;
    expect(message.tool_calls.map((c: any) => c.function)).toEqual([{ name: "read_file", arguments: '{"path":"a.ts"}' }]);
    expect(message.content).not.toContain("<tool_call>");
    expect(res.json.choices[0].finish_reason).toBe("tool_calls");
  });

  test("a malformed block is judged, not passed on: no tool call, no stray XML as a call", async () => {
    fake.chatText = '<tool_call>\n{"name": "read_file", "arguments": {"paht": "a.ts"}}\n</tool_call>';
    const res = await post(`${server.url}/v1/chat/completions`, chat({ tool_choice: "auto" }));
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.tool_calls ?? []).toEqual([]);
  });

  test("the library result carries the no-guarantee note and mode unconstrained", async () => {
    fake.chatText = CALL_TEXT;
    const runtime = await createOpenAIChatRuntime(fake.url);
    const r = await runtime.generate({ messages: [{ role: "user", content: "x" }], tools: TOOLS as never, toolChoice: "required", maxTokens: 64 });
    expect(r.toolCalls.map((c) => c.name)).toEqual(["read_file"]);
    expect(r.mode).toBe("unconstrained");
    expect(r.diagnostics.notes).toContain(NO_GRAMMAR_NOTE);
  });

  test("dies mid-stream → upstream_error, then served again", async () => {
    fake.chatText = CALL_TEXT;
    fake.behaviour = "cut";
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat()), 502, "upstream_error");
    fake.behaviour = "ok";
    const res = await post(`${server.url}/v1/chat/completions`, chat());
    expect(res.status).toBe(200);
  });
});
