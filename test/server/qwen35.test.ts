// `qtc serve` on the Qwen3.5 stand-in (Qwen3.5's special ids and template, random weights): an OpenAI client and an
// Anthropic client get structured calls in the qwen35 format, batch and streamed, also after a turn whose past
// call and tool result the server renders back into the Qwen3.5 template.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { compileValidators } from "../../src/tools/index.js";
import { tinyQwen35ModelPath } from "../helpers/models.js";
import { type Running, start } from "./helpers.js";

const str = { type: "string" };
const SCHEMAS = {
  read_file: { type: "object", properties: { path: str }, required: ["path"], additionalProperties: false },
  grep: { type: "object", properties: { pattern: str, path: str }, required: ["pattern", "path"], additionalProperties: false },
};
const TOOLS = Object.entries(SCHEMAS).map(([name, parameters]) => ({ type: "function" as const, function: { name, description: `The ${name} tool`, parameters } }));
const validators = compileValidators(TOOLS);
const MAX_TOKENS = 96;
const LIMIT_MS = 600_000;

let runtime: Runtime;
let server: Running;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyQwen35ModelPath(), threads: 2, contextSize: 2048, sequences: 2, gpu: "cpu" });
  server = await start({ runtime, parallel: 2 });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "local", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: "local", maxRetries: 0 });
}, LIMIT_MS);
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

const history: OpenAI.ChatCompletionMessageParam[] = [
  { role: "user", content: "Find the failing test." },
  { role: "assistant", content: "Looking.", tool_calls: [{ id: "call_1", type: "function", function: { name: "grep", arguments: '{"pattern": "it(", "path": "test"}' } }] },
  { role: "tool", tool_call_id: "call_1", content: "test/a.test.js: it('adds')" },
];

describe("qtc serve with synthetic:qwen3.5-tiny", () => {
  test("OpenAI, tool choice required, first turn and after a past call: structured calls that fit the schema, no tags in content", async () => {
    expect(runtime.format).toBe("qwen35");
    for (const [seed, messages] of [[1, history.slice(0, 1)], [2, history]] as const) {
      const r = await openai.chat.completions.create({ model: "m", messages: [...messages], tools: TOOLS, tool_choice: "required", max_tokens: MAX_TOKENS, seed });
      const choice = r.choices[0]!;
      expect(choice.finish_reason).toBe("tool_calls");
      expect(choice.message.tool_calls!.length).toBeGreaterThanOrEqual(1);
      expect(choice.message.content ?? "").not.toMatch(/<tool_call>|<function=/);
      for (const call of choice.message.tool_calls!) {
        if (call.type !== "function") throw new Error("not a function call");
        expect(validators.get(call.function.name)!.validate(JSON.parse(call.function.arguments))).toBeNull();
      }
    }
  }, LIMIT_MS);

  test("OpenAI streaming, a named function: the fragments concatenate to arguments that fit the schema", async () => {
    const stream = await openai.chat.completions.create({
      model: "m",
      messages: [...history],
      tools: TOOLS,
      tool_choice: { type: "function", function: { name: "read_file" } },
      max_tokens: MAX_TOKENS,
      seed: 3,
      stream: true,
    });
    const args = new Map<number, string>();
    const names = new Map<number, string>();
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (d.function?.name) names.set(d.index, d.function.name);
        args.set(d.index, (args.get(d.index) ?? "") + (d.function?.arguments ?? ""));
      }
    }
    expect([...names.values()].length).toBeGreaterThanOrEqual(1);
    for (const [i, text] of args) {
      expect(names.get(i)).toBe("read_file");
      expect(validators.get("read_file")!.validate(JSON.parse(text))).toBeNull();
    }
  }, LIMIT_MS);

  test("Anthropic, tool choice any: tool_use blocks whose input fits the schema", async () => {
    const r = await anthropic.messages.create({
      model: "m",
      max_tokens: MAX_TOKENS,
      messages: [{ role: "user", content: "Find the failing test." }],
      tools: TOOLS.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters as Anthropic.Tool.InputSchema })),
      tool_choice: { type: "any" },
    });
    expect(r.stop_reason).toBe("tool_use");
    const uses = r.content.filter((b) => b.type === "tool_use");
    expect(uses.length).toBeGreaterThanOrEqual(1);
    for (const u of uses) if (u.type === "tool_use") expect(validators.get(u.name)!.validate(u.input)).toBeNull();
  }, LIMIT_MS);
});
