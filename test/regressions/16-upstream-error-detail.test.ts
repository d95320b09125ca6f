// Issue 16 (engines) follow-up: an upstream's failure reached the client with the upstream's address and the
// first 300 characters of its reply (`http://127.0.0.1:PORT/completion answered HTTP 500: {"error":…}`). The
// client gets the code and a gateway status; the address and the reply go to the server's log only.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLlamaServerRuntime, createOpenAIChatRuntime } from "../../src/engines/index.js";
import { post, start, type Running } from "../server/helpers.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";

const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const chat = { model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: TOOLS, tool_choice: "required", max_tokens: 64 };

describe.each([
  ["llama-server", createLlamaServerRuntime],
  ["openai", createOpenAIChatRuntime],
] as const)("the %s engine's failures, as the client sees them", (_kind, create) => {
  let fake: FakeUpstream;
  let server: Running;
  const logged: string[] = [];
  beforeAll(async () => {
    fake = await startFakeUpstream();
    const runtime = await create(fake.url, { limits: { idleTimeoutMs: 500, timeoutMs: 5000 } });
    server = await start({ runtime, onInternalError: (e: unknown) => logged.push(String((e as Error).message)) } as never);
  });
  afterAll(async () => {
    await server?.app.close();
    await fake?.stop();
  });

  const hidden = (text: string) => {
    expect(text).not.toContain(new URL(fake.url).host);
    expect(text).not.toContain("boom");
  };

  test("an HTTP 500 with a body: 502 upstream_error, neither the address nor the reply in the answer, both in the log", async () => {
    fake.behaviour = "500";
    const res = await post(`${server.url}/v1/chat/completions`, chat);
    expect(res.status).toBe(502);
    expect(res.json.error.code).toBe("upstream_error");
    hidden(res.text);
    expect(logged.some((m) => m.includes(new URL(fake.url).host) && m.includes("boom"))).toBe(true);
  });

  test("the same in a stream's error event", async () => {
    fake.behaviour = "500";
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...chat, stream: true }) });
    const text = await res.text();
    expect(text).toContain("upstream_error");
    hidden(text);
  });
});
