// `qtc serve --upstream A --upstream B`: the official openai and @anthropic-ai/sdk clients against qtc's server
// with two real llama-server replicas (the synthetic tiny model): tool calls arrive structured, streaming works;
// one replica killed mid-test loses no request that had not started streaming, and the server keeps serving.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { serve, type Serving } from "../../src/server/serve.js";
import { startLlamaServer, type LlamaServerProcess } from "./llama-server-helper.js";

const OPENAI_TOOLS = HARNESS_TOOLS.map((t) => ({ type: "function" as const, function: { ...t.function } }));
const ANTHROPIC_TOOLS = HARNESS_TOOLS.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters as Anthropic.Tool.InputSchema }));
const NAMES = new Set(HARNESS_TOOLS.map((t) => t.function.name));

describe("qtc serve --upstream, two llama-server replicas", () => {
  let a: LlamaServerProcess;
  let b: LlamaServerProcess;
  let serving: Serving;
  let openai: OpenAI;
  let anthropic: Anthropic;
  beforeAll(async () => {
    [a, b] = await Promise.all([startLlamaServer({ slots: 2, threads: 1 }), startLlamaServer({ slots: 2, threads: 1 })]);
    serving = await serve({ model: `llama-server:${a.url},${b.url}`, port: 0, parallel: 4, onInternalError: () => undefined });
    openai = new OpenAI({ baseURL: `${serving.url}/v1`, apiKey: "none", maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: serving.url, apiKey: "none", maxRetries: 0 });
  }, 180_000);
  afterAll(async () => {
    await serving?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test("openai client: tool_choice required → structured tool_calls with JSON arguments", async () => {
    const r = await openai.chat.completions.create({ model: "qtc", messages: [{ role: "user", content: "Fix the test." }], tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: 96, seed: 1 });
    const calls = r.choices[0]!.message.tool_calls ?? [];
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.type).toBe("function");
      if (call.type !== "function") continue;
      expect(NAMES.has(call.function.name)).toBe(true);
      expect(typeof JSON.parse(call.function.arguments)).toBe("object");
    }
    expect(r.choices[0]!.finish_reason).toBe("tool_calls");
  });

  test("openai client, streaming: the named call arrives as tool_call deltas", async () => {
    const stream = await openai.chat.completions.create({ model: "qtc", messages: [{ role: "user", content: "Read it." }], tools: OPENAI_TOOLS, tool_choice: { type: "function", function: { name: "read_file" } }, max_tokens: 96, seed: 2, stream: true });
    let name = "";
    let args = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      for (const tc of delta?.tool_calls ?? []) {
        if (tc.index !== 0) continue;
        name += tc.function?.name ?? "";
        args += tc.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe("read_file");
    expect(Object.keys(JSON.parse(args))).toEqual(["path"]);
    expect(finish).toBe("tool_calls");
  });

  test("anthropic client: tool_choice any → tool_use blocks; streaming gives the same shape", async () => {
    const m = await anthropic.messages.create({ model: "qtc", max_tokens: 96, messages: [{ role: "user", content: "Fix it." }], tools: ANTHROPIC_TOOLS, tool_choice: { type: "any" } });
    const uses = m.content.filter((c) => c.type === "tool_use");
    expect(uses.length).toBeGreaterThan(0);
    expect(m.stop_reason).toBe("tool_use");
    const stream = anthropic.messages.stream({ model: "qtc", max_tokens: 96, messages: [{ role: "user", content: "List." }], tools: ANTHROPIC_TOOLS, tool_choice: { type: "tool", name: "list_files" } });
    const final = await stream.finalMessage();
    const streamed = final.content.filter((c) => c.type === "tool_use");
    expect(streamed.map((c) => c.type === "tool_use" && c.name)).toEqual(streamed.map(() => "list_files"));
    expect(streamed.length).toBeGreaterThan(0);
  });

  test("one replica killed mid-test: no request that had not started streaming is lost; the server keeps serving", async () => {
    const one = async (i: number) => {
      const res = await fetch(`${serving.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "qtc", messages: [{ role: "user", content: `Task ${i}` }], tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: 256, seed: 100 + i, stream: true }),
      });
      return { status: res.status, text: await res.text() };
    };
    const members = () => (serving.runtime as unknown as { members: { url: string; healthy: boolean; inFlight: number }[] }).members;
    const batch = Array.from({ length: 8 }, (_, i) => one(i));
    // Kill b while it serves requests, so the kill is mid-run for some of them.
    const deadline = Date.now() + 30_000;
    while (!(members().find((m) => m.url === b.url)!.inFlight > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(members().find((m) => m.url === b.url)!.inFlight).toBeGreaterThan(0);
    await b.stop();
    const results = await Promise.all(batch);
    // A request whose stream had not started (no 200 yet) was retried on the live replica: never an error status.
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    // Streams that had started end either complete or with an upstream_* error event, never silently.
    for (const r of results) {
      const complete = r.text.includes('"finish_reason":"tool_calls"') && r.text.includes("[DONE]");
      const failed = /"code":"upstream_(error|timeout|unavailable)"/.test(r.text);
      expect(complete || failed).toBe(true);
    }
    expect(members().find((m) => m.url === b.url)!.healthy).toBe(false);
    const after = await Promise.all(Array.from({ length: 4 }, (_, i) => one(50 + i)));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(after.every((r) => r.text.includes('"finish_reason":"tool_calls"'))).toBe(true);
  }, 300_000);
});
