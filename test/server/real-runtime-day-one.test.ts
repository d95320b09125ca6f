// Acceptance on the real runtime with the synthetic tiny Qwen3: a raw completions prompt is tokenized with its
// template markers as special tokens (it costs what the same chat turn costs), count_tokens equals the usage a
// message then reports, message_start carries it, and the Responses API returns calls that fit their schema.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { compileValidators } from "../../src/tools/index.js";
import { tinyModelPath } from "../helpers/models.js";
import { parseSse, post, type Running, start } from "./helpers.js";

const READ_FILE = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false };
let runtime: Runtime;
let server: Running;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1, gpu: "cpu" });
  server = await start({ runtime });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "local", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: "local", maxRetries: 0 });
});
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

describe("real runtime", () => {
  test("a raw prompt's template markers are special tokens: it costs what the same chat turn costs", async () => {
    const raw = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
    const chat = runtime.countTokens!({ messages: [{ role: "user", content: "hi" }], thinking: false });
    const done = await openai.completions.create({ model: "tiny", prompt: raw, max_tokens: 4, seed: 1 });
    expect(done.usage!.prompt_tokens).toBe(chat);
    expect(done.usage!.completion_tokens).toBeGreaterThan(0);
    expect(typeof done.choices[0]!.text).toBe("string");
  });

  test("count_tokens equals the input_tokens a message reports, in message_start too", async () => {
    const body = { model: "tiny", messages: [{ role: "user" as const, content: "Read a.ts please." }], tools: [{ name: "read_file", description: "Read a file", input_schema: READ_FILE as Anthropic.Tool.InputSchema }] };
    const { input_tokens } = await anthropic.messages.countTokens(body);
    expect(input_tokens).toBeGreaterThan(20);
    const message = await anthropic.messages.create({ ...body, max_tokens: 4 });
    expect(message.usage.input_tokens).toBe(input_tokens);
    const res = await post(`${server.url}/v1/messages`, { ...body, max_tokens: 4, stream: true });
    expect(parseSse(res.text)[0]!.data.message.usage.input_tokens).toBe(input_tokens);
  });

  test("a stop sequence cuts the same seeded answer where it first appears, and the generation stops there", async () => {
    const ask = { model: "tiny", messages: [{ role: "user" as const, content: "Say something." }], max_tokens: 48, seed: 7 };
    const whole = await openai.chat.completions.create(ask);
    const text = whole.choices[0]!.message.content ?? "";
    expect(text.length).toBeGreaterThan(12);
    const stop = text.slice(8, 11);
    const cut = await openai.chat.completions.create({ ...ask, stop });
    expect(cut.choices[0]!.message.content).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0]!.finish_reason).toBe("stop");
    expect(cut.usage!.completion_tokens).toBeLessThan(whole.usage!.completion_tokens);
  });

  test("responses.create with a required tool: function_call items that fit the schema", async () => {
    const validate = compileValidators([{ type: "function", function: { name: "read_file", parameters: READ_FILE } }]).get("read_file")!;
    const response = await openai.responses.create({ model: "tiny", input: "Read a.ts", tools: [{ type: "function", name: "read_file", parameters: READ_FILE, strict: true }], tool_choice: "required", max_output_tokens: 64 });
    const calls = response.output.filter((item) => item.type === "function_call");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) expect(validate.validate(JSON.parse(call.arguments))).toBeNull();
  });
});
