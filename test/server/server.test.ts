// The HTTP layer with a scripted runtime: health and models, API keys, queueing beyond `parallel`, cancelling
// on disconnect (running and queued), overload, errors the runtime raises before and during a stream, close.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, test } from "vitest";
import { QtcException } from "../../src/errors.js";
import type { GenerateEvent } from "../../src/runtime/types.js";
import type { ServerRuntime } from "../../src/server/index.js";
import { fakeRuntime } from "./fake-runtime.js";
import { expectAnthropicError, expectOpenAIError, post, READ_FILE_OPENAI, type Running, start, waitFor } from "./helpers.js";

const user = [{ role: "user" as const, content: "hi" }];
let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

async function health(url: string): Promise<{ busy: number; queued: number; total: number }> {
  const body = (await (await fetch(`${url}/health`)).json()) as { slots: { busy: number; queued: number; total: number } };
  return body.slots;
}

describe("health and models", () => {
  test("GET /health reports the model, mode and slots", async () => {
    server = await start({ runtime: fakeRuntime(), parallel: 3, mode: "unconstrained" });
    const body = await (await fetch(`${server.url}/health`)).json();
    expect(body).toEqual({ status: "ok", model: "fake-model", mode: "unconstrained", slots: { total: 3, busy: 0, queued: 0 } });
  });

  test("GET /v1/models in OpenAI and Anthropic shapes", async () => {
    server = await start({ runtime: fakeRuntime(), modelId: "qwen3-test" });
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const models = [];
    for await (const model of openai.models.list()) models.push(model.id);
    expect(models).toEqual(["qwen3-test"]);
    expect((await openai.models.retrieve("qwen3-test")).id).toBe("qwen3-test");
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "unused", maxRetries: 0 });
    const page = await anthropic.models.list();
    expect(page.data.map((m) => [m.type, m.id])).toEqual([["model", "qwen3-test"]]);
  });
});

describe("API key", () => {
  test("missing or wrong keys get 401 in each API's shape; the right key passes; /health stays open", async () => {
    server = await start({ runtime: fakeRuntime(), apiKey: "sekrit" });
    const chat = `${server.url}/v1/chat/completions`;
    const messages = `${server.url}/v1/messages`;
    const oBody = { model: "m", messages: user };
    const aBody = { model: "m", max_tokens: 16, messages: user };
    expectOpenAIError(await post(chat, oBody), 401, "invalid_api_key", null);
    expectOpenAIError(await post(chat, oBody, { authorization: "Bearer wrong" }), 401, "invalid_api_key", null);
    expectAnthropicError(await post(messages, aBody), 401, "authentication_error");
    expectAnthropicError(await post(messages, aBody, { "x-api-key": "sekrit-but-longer" }), 401, "authentication_error");
    expect((await fetch(`${server.url}/v1/models`)).status).toBe(401);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);

    const good = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "sekrit", maxRetries: 0 });
    expect((await good.chat.completions.create({ model: "m", messages: user })).choices[0]!.message.content).toBe("Hello from qtc.");
    const bad = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "nope", maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: "m", messages: user })).rejects.toMatchObject({ status: 401 });
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "sekrit", maxRetries: 0 });
    const reply = await anthropic.messages.create({ model: "m", max_tokens: 16, messages: user });
    expect(reply.content).toEqual([{ type: "text", text: "Hello from qtc." }]);
  });
});

describe("slots", () => {
  test("16 concurrent requests with parallel 4: all complete, never more than 4 at once", async () => {
    const runtime = fakeRuntime({ delayMs: 5, held: true });
    server = await start({ runtime, parallel: 4 });
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x", maxRetries: 0 });
    const pending = Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: `q${i}` }], tools: [READ_FILE_OPENAI], tool_choice: "required" }),
      ),
    );
    await waitFor(async () => (await health(server!.url)).queued === 12);
    expect(runtime.running).toBe(4);
    runtime.open();
    const results = await pending;
    for (const r of results) {
      const call = r.choices[0]!.message.tool_calls![0]!;
      expect(call.type === "function" && [call.function.name, JSON.parse(call.function.arguments)]).toEqual(["read_file", { path: "path-value" }]);
    }
    expect(runtime.requests.map((q) => q.messages[0]!.content).sort()).toEqual(Array.from({ length: 16 }, (_, i) => `q${i}`).sort());
    expect(runtime.maxRunning).toBe(4);
    expect(await health(server.url)).toEqual({ total: 4, busy: 0, queued: 0 });
  });

  test("a cancelled stream frees its slot and stops its generation", async () => {
    const runtime = fakeRuntime({ delayMs: 40, text: "word ".repeat(100) }); // 4 s of events unless cancelled
    server = await start({ runtime, parallel: 1 });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: user, stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"role":"assistant"');
    expect(await health(server.url)).toEqual({ total: 1, busy: 1, queued: 0 });
    controller.abort();
    await waitFor(async () => (await health(server!.url)).busy === 0);
    expect(runtime.aborted).toBe(1);
    const next = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: "required" });
    expect(next.status).toBe(200);
    expect(next.json.choices[0].message.tool_calls[0].function.arguments).toBe('{"path":"path-value"}');
  });

  test("a client that leaves while queued leaves the queue; its request never reaches the runtime", async () => {
    const runtime = fakeRuntime({ held: true });
    server = await start({ runtime, parallel: 1 });
    const running = post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
    await waitFor(() => runtime.running === 1);
    const controller = new AbortController();
    const queued = fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 16, messages: user }),
      signal: controller.signal,
    }).catch((e: Error) => e.name);
    await waitFor(async () => (await health(server!.url)).queued === 1);
    controller.abort();
    expect(await queued).toBe("AbortError");
    await waitFor(async () => (await health(server!.url)).queued === 0);
    runtime.open();
    expect((await running).status).toBe(200);
    expect(runtime.requests).toHaveLength(1);
  });

  test("a full queue answers 503 (OpenAI) and 529 overloaded_error (Anthropic)", async () => {
    const runtime = fakeRuntime({ held: true });
    server = await start({ runtime, parallel: 1, queueLimit: 1 });
    const first = post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
    await waitFor(() => runtime.running === 1);
    const second = post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
    await waitFor(async () => (await health(server!.url)).queued === 1);
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user }), 503, "overloaded", null);
    expectAnthropicError(await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 8, messages: user }), 529, "overloaded_error");
    runtime.open();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
  });

  test("close() cancels generations in flight and tells their clients", async () => {
    const runtime = fakeRuntime({ held: true });
    const local = await start({ runtime, parallel: 1 });
    const pending = post(`${local.url}/v1/chat/completions`, { model: "m", messages: user });
    const streamed = fetch(`${local.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 8, messages: user, stream: true }),
    });
    await waitFor(() => runtime.running === 1);
    await waitFor(async () => (await health(local.url)).queued === 1);
    await local.app.close();
    // close() returned because the cancelled generation wound down, not because its grace period ran out: the
    // held request (which never ends unless aborted) is over by then.
    expect(runtime.running).toBe(0);
    expect(runtime.aborted).toBe(1);
    expectOpenAIError(await pending, 503, "shutting_down", null);
    expectAnthropicError({ status: (await streamed).status, json: JSON.parse(await (await streamed).text()) }, 503, "overloaded_error");
  });
});

/** A runtime that refuses every request the way the library refuses bad caller input. */
function refusingRuntime(): ServerRuntime {
  const refuse = () => {
    throw new QtcException({ code: "unsupported_keyword", message: 'tool "f": keyword "if" is not supported', path: "/if" });
  };
  return {
    generate: async () => refuse(),
    // eslint-disable-next-line require-yield
    stream: async function* (): AsyncGenerator<GenerateEvent> {
      refuse();
    },
  };
}

/** A runtime that fails after its first text event. */
function failingRuntime(): ServerRuntime {
  return {
    generate: async () => {
      throw new Error("boom");
    },
    stream: async function* (): AsyncGenerator<GenerateEvent> {
      yield { type: "text-delta", text: "partial" };
      throw new Error("llama.cpp exploded");
    },
  };
}

describe("runtime errors", () => {
  test("input the runtime refuses is a 400 with the library's code, streamed or not", async () => {
    server = await start({ runtime: refusingRuntime() });
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user }), 400, "unsupported_keyword", "tools");
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, stream: true }), 400, "unsupported_keyword", "tools");
    expectAnthropicError(await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 8, messages: user, stream: true }), 400, "invalid_request_error");
  });

  test("a failure mid-stream ends the stream with an error event; a failure before it is a 500", async () => {
    const recorded: unknown[] = [];
    server = await start({ runtime: failingRuntime(), onInternalError: (e) => recorded.push(e) });
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user }), 500, "internal", null);
    expect(recorded.map(String)).toEqual(["Error: boom"]);
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x", maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: "m", messages: user, stream: true });
    const texts: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) texts.push(chunk.choices[0]?.delta.content ?? "");
      })(),
    ).rejects.toThrow(/Internal server error/);
    expect(texts.join("")).toBe("partial");
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
    const aStream = anthropic.messages.stream({ model: "m", max_tokens: 8, messages: user });
    await expect(aStream.finalMessage()).rejects.toThrow(/Internal server error/);
    expect(recorded.map(String)).toEqual(["Error: boom", "Error: llama.cpp exploded", "Error: llama.cpp exploded"]);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
