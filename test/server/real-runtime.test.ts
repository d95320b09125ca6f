// Acceptance: `qtc serve` on the real runtime with the synthetic tiny Qwen3 (random weights), driven by the
// official `openai` and `@anthropic-ai/sdk` clients. Tool calls arrive structured, their arguments parse and fit
// the schema, `required` always yields a call, streamed fragments concatenate to the final arguments, 16
// concurrent requests with parallel 4 complete, a cancelled stream frees its slot, bad input gets a 400, and
// response_format answers are JSON that fits their schema.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { compileValidators, compileValueValidator } from "../../src/tools/index.js";
import { tinyModelPath } from "../helpers/models.js";
import { expectOpenAIError, post, rawRequest, type Running, start, waitFor } from "./helpers.js";

const str = { type: "string" };
const SCHEMAS = {
  read_file: { type: "object", properties: { path: str }, required: ["path"], additionalProperties: false },
  grep: { type: "object", properties: { pattern: str, path: str }, required: ["pattern", "path"], additionalProperties: false },
  write_file: { type: "object", properties: { path: str, content: str }, required: ["path", "content"], additionalProperties: false },
};
const OPENAI_TOOLS = Object.entries(SCHEMAS).map(([name, parameters]) => ({ type: "function" as const, function: { name, description: `The ${name} tool`, parameters } }));
const ANTHROPIC_TOOLS = Object.entries(SCHEMAS).map(([name, input_schema]) => ({ name, description: `The ${name} tool`, input_schema: input_schema as Anthropic.Tool.InputSchema }));
const validators = compileValidators(OPENAI_TOOLS);

/** The arguments parse as JSON and fit the named tool's schema. */
function expectValid(name: string, args: unknown): void {
  const tool = validators.get(name);
  expect(tool, `unknown tool ${name}`).toBeDefined();
  expect(tool!.validate(args)).toBeNull();
}

const MAX_TOKENS = 96;
const messages = [{ role: "user" as const, content: "Look at the project and fix the failing test." }];
let runtime: Runtime;
let server: Running;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 2, contextSize: 2048, sequences: 4, gpu: "cpu" });
  server = await start({ runtime, parallel: 4 });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "local", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: "local", maxRetries: 0 });
});
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

describe("OpenAI client", () => {
  test("required: every response carries structured tool_calls whose arguments fit the schema", async () => {
    for (const seed of [1, 2, 3]) {
      const r = await openai.chat.completions.create({ model: "tiny", messages, tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: MAX_TOKENS, seed });
      const choice = r.choices[0]!;
      expect(choice.finish_reason).toBe("tool_calls");
      expect(choice.message.tool_calls!.length).toBeGreaterThanOrEqual(1);
      expect(choice.message.content ?? "").not.toContain("<tool_call>");
      for (const call of choice.message.tool_calls!) {
        expect(call.type).toBe("function");
        expect(call.id).toMatch(/^call_/);
        if (call.type !== "function") continue;
        expectValid(call.function.name, JSON.parse(call.function.arguments));
      }
      expect(r.usage!.completion_tokens).toBeGreaterThan(0);
      expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
    }
  });

  test("a non-streaming answer says which grammar constrained it (x-qtc-grammar, issue 31)", async () => {
    const res = await rawRequest(server.url, "POST", "/v1/chat/completions", { model: "tiny", messages, tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: MAX_TOKENS, seed: 3 });
    expect(res.status).toBe(200);
    expect(String(res.headers["x-qtc-grammar"])).toMatch(/^[0-9a-f]{16}; exact$/);
  });

  test("a named function: the call is to that function", async () => {
    const r = await openai.chat.completions.create({
      model: "tiny",
      messages,
      tools: OPENAI_TOOLS,
      tool_choice: { type: "function", function: { name: "grep" } },
      parallel_tool_calls: false,
      max_tokens: MAX_TOKENS,
      seed: 7,
    });
    const calls = r.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.type === "function" && calls[0]!.function.name).toBe("grep");
    if (calls[0]!.type === "function") expectValid("grep", JSON.parse(calls[0]!.function.arguments));
  });

  test("streaming: id, type and name first, then fragments that concatenate to the final arguments", async () => {
    const stream = openai.chat.completions.stream({ model: "tiny", messages, tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: MAX_TOKENS, seed: 11, stream_options: { include_usage: true } });
    const fragments = new Map<number, string>();
    const heads = new Map<number, { id?: string; type?: string; name?: string; arguments?: string }>();
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    stream.on("chunk", (chunk) => {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) return;
      if (choice.finish_reason) finish = choice.finish_reason;
      for (const part of choice.delta.tool_calls ?? []) {
        if (!heads.has(part.index)) heads.set(part.index, { id: part.id, type: part.type, name: part.function?.name, arguments: part.function?.arguments });
        fragments.set(part.index, (fragments.get(part.index) ?? "") + (part.function?.arguments ?? ""));
      }
    });
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!;
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(finish).toBe("tool_calls");
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    calls.forEach((call, i) => {
      if (call.type !== "function") throw new Error("not a function call");
      expect(heads.get(i)).toEqual({ id: call.id, type: "function", name: call.function.name, arguments: "" });
      expect(fragments.get(i)).toBe(call.function.arguments);
      expectValid(call.function.name, JSON.parse(call.function.arguments));
    });
    // The same seed, not streamed, gives the same calls.
    const whole = await openai.chat.completions.create({ model: "tiny", messages, tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: MAX_TOKENS, seed: 11 });
    expect(whole.choices[0]!.message.tool_calls!.map((c) => c.type === "function" && [c.function.name, c.function.arguments])).toEqual(
      calls.map((c) => c.type === "function" && [c.function.name, c.function.arguments]),
    );
  });

  test("bad input the runtime judges: a prompt over the context is a 400 saying so; then it serves", async () => {
    // (A max_tokens over what the context leaves is clamped on this route since issue 25: test/regressions/25-overflow-wording.)
    const res = await post(`${server.url}/v1/chat/completions`, { model: "tiny", messages: [{ role: "user", content: "lorem ipsum dolor ".repeat(1200) }], max_tokens: 8 });
    expectOpenAIError(res, 400, "context_length_exceeded", "messages");
    const bad = await post(`${server.url}/v1/chat/completions`, {
      model: "tiny",
      messages,
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { type: "no-such-type" } } } } }],
    });
    expectOpenAIError(bad, 400, "invalid_schema", "tools");
    const ok = await openai.chat.completions.create({ model: "tiny", messages, tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: MAX_TOKENS, seed: 5 });
    expect(ok.choices[0]!.message.tool_calls!.length).toBeGreaterThanOrEqual(1);
  });
});

describe("OpenAI client, response_format", () => {
  const WEATHER = {
    type: "object",
    properties: { city: { type: "string", maxLength: 20 }, celsius: { type: "integer", minimum: -60, maximum: 60 }, sky: { enum: ["clear", "rain"] } },
    required: ["city", "celsius", "sky"],
    additionalProperties: false,
  };
  const fits = compileValueValidator(WEATHER);
  const weather = { type: "json_schema" as const, json_schema: { name: "weather", schema: WEATHER, strict: true } };
  const ask = [{ role: "user" as const, content: "Weather in Paris, as JSON." }];

  test("json_schema: the content is JSON that fits the schema, finish_reason stop, for every seed", async () => {
    for (const seed of [1, 2, 3, 4]) {
      const r = await openai.chat.completions.create({ model: "tiny", messages: ask, response_format: weather, max_tokens: MAX_TOKENS, seed });
      const choice = r.choices[0]!;
      expect(choice.finish_reason).toBe("stop");
      expect(choice.message.tool_calls ?? []).toEqual([]);
      expect(fits(JSON.parse(choice.message.content!))).toBeNull();
    }
  });

  test("json_schema streamed: the content deltas concatenate to JSON that fits", async () => {
    const stream = await openai.chat.completions.create({ model: "tiny", messages: ask, response_format: weather, max_tokens: MAX_TOKENS, seed: 9, stream: true });
    let text = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("stop");
    expect(fits(JSON.parse(text))).toBeNull();
  });

  test("json_object: a JSON object; with tools under auto: tool calls or JSON that fits", async () => {
    const obj = await openai.chat.completions.create({ model: "tiny", messages: ask, response_format: { type: "json_object" }, max_tokens: MAX_TOKENS, seed: 2 });
    const value = JSON.parse(obj.choices[0]!.message.content!);
    expect([typeof value, Array.isArray(value)]).toEqual(["object", false]);
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const r = await openai.chat.completions.create({ model: "tiny", messages: ask, tools: OPENAI_TOOLS, response_format: weather, max_tokens: 128, seed });
      const message = r.choices[0]!.message;
      if (message.tool_calls?.length) {
        expect(r.choices[0]!.finish_reason).toBe("tool_calls");
        for (const call of message.tool_calls) if (call.type === "function") expectValid(call.function.name, JSON.parse(call.function.arguments));
      } else {
        expect(fits(JSON.parse(message.content!))).toBeNull();
      }
    }
  });

  test("a response schema the grammar cannot honour is a 400 naming the keyword; then it serves", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, {
      model: "tiny",
      messages: ask,
      // Refused under every policy (patternProperties is left to the validator by default since issue 31).
      response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "string", enum: ["<tool_call>"] } } },
    });
    expectOpenAIError(res, 400, "unsupported_keyword", "response_format.json_schema.schema");
    expect(res.json.error.message).toContain("tool-call tag");
    const ok = await openai.chat.completions.create({ model: "tiny", messages: ask, response_format: weather, max_tokens: MAX_TOKENS, seed: 5 });
    expect(fits(JSON.parse(ok.choices[0]!.message.content!))).toBeNull();
  });
});

describe("Anthropic client", () => {
  test("any: tool_use blocks with input that fits the schema; stop_reason tool_use", async () => {
    for (let i = 0; i < 2; i++) {
      const m = await anthropic.messages.create({ model: "tiny", max_tokens: MAX_TOKENS, messages, tools: ANTHROPIC_TOOLS, tool_choice: { type: "any" } });
      expect(m.stop_reason).toBe("tool_use");
      const uses = m.content.filter((b) => b.type === "tool_use");
      expect(uses.length).toBeGreaterThanOrEqual(1);
      for (const use of uses) {
        expect(use.id).toMatch(/^toolu_/);
        expectValid(use.name, use.input);
      }
      expect(m.usage.output_tokens).toBeGreaterThan(0);
    }
  });

  test("streaming: input_json_delta fragments concatenate to each tool_use input; events in order", async () => {
    const stream = anthropic.messages.stream({ model: "tiny", max_tokens: MAX_TOKENS, messages, tools: ANTHROPIC_TOOLS, tool_choice: { type: "tool", name: "write_file" } });
    const kinds: string[] = [];
    const json = new Map<number, string>();
    stream.on("streamEvent", (event) => {
      kinds.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
        json.set(event.index, (json.get(event.index) ?? "") + event.delta.partial_json);
      }
    });
    const final = await stream.finalMessage();
    expect(kinds[0]).toBe("message_start");
    expect(kinds.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(final.stop_reason).toBe("tool_use");
    const uses = final.content.map((b, i) => [b, i] as const).filter(([b]) => b.type === "tool_use");
    expect(uses.length).toBeGreaterThanOrEqual(1);
    for (const [block, index] of uses) {
      if (block.type !== "tool_use") continue;
      expect(block.name).toBe("write_file");
      expect(JSON.parse(json.get(index)!)).toEqual(block.input);
      expectValid("write_file", block.input);
    }
  });

  test("a history with tool_use and tool_result blocks is accepted and answered", async () => {
    const m = await anthropic.messages.create({
      model: "tiny",
      max_tokens: MAX_TOKENS,
      system: "You fix bugs.",
      tools: ANTHROPIC_TOOLS,
      tool_choice: { type: "any" },
      messages: [
        ...messages,
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_prev", name: "read_file", input: { path: "src/a.js" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_prev", content: "export const a = 1;" }] },
      ],
    });
    const uses = m.content.filter((b) => b.type === "tool_use");
    expect(uses.length).toBeGreaterThanOrEqual(1);
    for (const use of uses) expectValid(use.name, use.input);
  });
});

describe("concurrency and cancellation", () => {
  test("16 concurrent requests with parallel 4 all complete with valid calls", async () => {
    // One tool keeps the 16 prompts short (prefill dominates on a 2-core CPU).
    const jobs = Array.from({ length: 16 }, async (_, i) => {
      if (i % 2 === 0) {
        const r = await openai.chat.completions.create({ model: "tiny", messages, tools: OPENAI_TOOLS.slice(0, 1), tool_choice: "required", max_tokens: MAX_TOKENS, seed: 100 + i });
        return r.choices[0]!.message.tool_calls!.map((c) => (c.type === "function" ? [c.function.name, JSON.parse(c.function.arguments)] : ["?", null]));
      }
      const m = await anthropic.messages.create({ model: "tiny", max_tokens: MAX_TOKENS, messages, tools: ANTHROPIC_TOOLS.slice(0, 1), tool_choice: { type: "any" } });
      return m.content.flatMap((b) => (b.type === "tool_use" ? [[b.name, b.input]] : []));
    });
    const results = await Promise.all(jobs);
    expect(results).toHaveLength(16);
    for (const calls of results) {
      expect(calls.length).toBeGreaterThanOrEqual(1);
      for (const [name, args] of calls) expectValid(name as string, args);
    }
    const health = (await (await fetch(`${server.url}/health`)).json()) as { slots: unknown };
    expect(health.slots).toEqual({ total: 4, busy: 0, queued: 0 });
    // 16 generations on 2 cores: 70 s beside other work, past 120 s on a machine loaded twice over (session 27's
    // rehearsal). The test judges the calls and the slots, not the time.
  }, 360_000);

  test("a cancelled stream stops its generation and frees its slot for the next request", async () => {
    const single = await start({ runtime, parallel: 1 });
    try {
      const controller = new AbortController();
      const client = new OpenAI({ baseURL: `${single.url}/v1`, apiKey: "local", maxRetries: 0 });
      const stream = await client.chat.completions.create(
        { model: "tiny", messages, max_tokens: 1500, stream: true, seed: 3 },
        { signal: controller.signal },
      );
      let chunks = 0;
      // The SDK ends the iteration quietly when its signal aborts.
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) chunks++;
        if (chunks === 2) controller.abort();
      }
      expect(chunks).toBe(2);
      // 1500 tokens take minutes on this model: the one slot is free (and serves the next request) well before
      // that only if the generation stopped. 30 s is a bound only a generation that went on crosses.
      const slots = async () => ((await (await fetch(`${single.url}/health`)).json()) as { slots: { busy: number } }).slots;
      await waitFor(async () => (await slots()).busy === 0, 30_000);
      const next = await client.chat.completions.create({ model: "tiny", messages, tools: OPENAI_TOOLS, tool_choice: "required", max_tokens: MAX_TOKENS, seed: 9 });
      expect(next.choices[0]!.message.tool_calls!.length).toBeGreaterThanOrEqual(1);
    } finally {
      await single.app.close();
    }
  });
});
