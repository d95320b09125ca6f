// Legacy text completions (`POST /v1/completions`) through the official `openai` client: the raw prompt reaches
// the runtime as given, the answer is the model's raw text (calls as written), streamed or whole, stop applies.

import OpenAI from "openai";
import { afterEach, describe, expect, test } from "vitest";
import type { ToolCall } from "../../src/parse/types.js";
import type { GenerateEvent } from "../../src/runtime/types.js";
import { asRawText } from "../../src/server/completions.js";
import { fakeRuntime } from "./fake-runtime.js";
import { expectOpenAIError, post, type Running, start } from "./helpers.js";

let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

const PROMPT = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n";

describe("POST /v1/completions", () => {
  test("completions.create: the raw prompt goes to the runtime, the text comes back", async () => {
    const runtime = fakeRuntime();
    server = await start({ runtime });
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x" });
    const done = await openai.completions.create({ model: "m", prompt: PROMPT, max_tokens: 32 });
    expect(done.object).toBe("text_completion");
    expect(done.choices[0]!.text).toBe("Hello from qtc.");
    expect(done.choices[0]!.finish_reason).toBe("stop");
    expect(done.usage).toMatchObject({ prompt_tokens: 10, total_tokens: 10 + done.usage!.completion_tokens });
    expect(runtime.requests[0]).toMatchObject({ prompt: PROMPT, messages: [], maxTokens: 32 });
    expect(runtime.requests[0]!.tools).toBeUndefined();
  });

  test("streamed, with stop and include_usage", async () => {
    server = await start({ runtime: fakeRuntime() });
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x" });
    const stream = await openai.completions.create({ model: "m", prompt: PROMPT, stream: true, stop: ["qtc"], stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("Hello from ");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 10 });
  });

  test("max_tokens defaults to 16, as OpenAI's legacy endpoint has it", async () => {
    const runtime = fakeRuntime();
    server = await start({ runtime });
    await post(`${server.url}/v1/completions`, { model: "m", prompt: "x" });
    expect(runtime.requests[0]!.maxTokens).toBe(16);
  });

  test("what qtc cannot honour is a 400 naming the field", async () => {
    server = await start({ runtime: fakeRuntime() });
    const url = `${server.url}/v1/completions`;
    expectOpenAIError(await post(url, { model: "m", prompt: ["a", "b"] }), 400, "unsupported_parameter", "prompt");
    expectOpenAIError(await post(url, { model: "m", prompt: [1, 2, 3] }), 400, "invalid_request", "prompt");
    expectOpenAIError(await post(url, { model: "m", prompt: "x", echo: true }), 400, "unsupported_parameter", "echo");
    expectOpenAIError(await post(url, { model: "m", prompt: "x", logprobs: 21 }), 400, "invalid_request", "logprobs");
    expectOpenAIError(await post(url, { model: "m" }), 400, "invalid_request", "prompt");
  });
});

describe("asRawText", () => {
  test("calls, rejected blocks and reasoning come back as the model wrote them", async () => {
    const call: ToolCall = { id: "a", name: "f", arguments: "{}", parsedArguments: {}, format: "hermes", raw: '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', start: 0, end: 0 };
    async function* events(): AsyncGenerator<GenerateEvent> {
      yield { type: "reasoning-delta", text: "hm" };
      yield { type: "text-delta", text: "ok " };
      yield { type: "tool-call-start", index: 0, id: "a", name: "f" };
      yield { type: "tool-call", index: 0, call };
      yield { type: "error", error: { reason: "invalid_json", message: "m", raw: "<tool_call>{", start: 0, end: 0 } };
    }
    let text = "";
    for await (const event of asRawText(events())) if (event.type === "text-delta") text += event.text;
    expect(text).toBe(`<think>hm</think>ok ${call.raw}<tool_call>{`);
  });
});
