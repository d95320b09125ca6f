// Prefix reuse: a repeated prompt evaluates only its last token, a growing conversation only its new turn, a
// request goes to the sequence holding its prefix, and `deterministic: true` keeps whole batches so a warm
// cache changes nothing for the same seed.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type GenerateOutput, type GenerateRequest, type Runtime } from "../../src/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import type { ChatMessage } from "../../src/prompt/types.js";
import { planReuse } from "../../src/runtime/prefix-reuse.js";
import { tinyModelPath } from "../helpers/models.js";

const tools = [...HARNESS_TOOLS];
const EMPTY_THINK_TOKENS = 4;
const ask = (content: string): ChatMessage[] => [{ role: "user", content }];
const base: GenerateRequest = { messages: ask("List the files under src, then read the main one."), tools, toolChoice: "required", maxTokens: 48, seed: 3 };

/** The assistant turn and tool results an agent would send back after `r`. */
function continued(messages: ChatMessage[], r: GenerateOutput): ChatMessage[] {
  const calls = r.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } }));
  return [
    ...messages,
    { role: "assistant", content: r.content, reasoning_content: r.reasoning, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    ...r.toolCalls.map((c): ChatMessage => ({ role: "tool", content: `result of ${c.name}: a.ts b.ts`, tool_call_id: c.id, name: c.name })),
  ];
}

describe("planReuse", () => {
  const fast = { deterministic: false, batchSize: 512 };
  const exact = { deterministic: true, batchSize: 512 };
  test("keeps the whole common prefix but the last prompt token, whatever its length", () => {
    expect(planReuse(390, 390, fast)).toEqual({ keep: 389, evaluate: 1 });
    expect(planReuse(600, 390, fast)).toEqual({ keep: 389, evaluate: 1 });
    expect(planReuse(200, 390, fast)).toEqual({ keep: 200, evaluate: 190 });
    expect(planReuse(0, 390, fast)).toEqual({ keep: 0, evaluate: 390 });
    expect(planReuse(0, 1, fast)).toEqual({ keep: 0, evaluate: 1 });
  });
  test("deterministic keeps whole batches only", () => {
    expect(planReuse(390, 390, exact)).toEqual({ keep: 0, evaluate: 390 });
    expect(planReuse(1100, 1100, exact)).toEqual({ keep: 1024, evaluate: 76 });
    expect(planReuse(1024, 1025, exact)).toEqual({ keep: 1024, evaluate: 1 });
  });
});

describe("prefix reuse in the runtime", () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 2048, sequences: 2 });
  });
  afterAll(async () => rt?.close());

  test("the same prompt again evaluates only its last token", async () => {
    const first = await rt.generate(base);
    const again = await rt.generate(base);
    expect(first.usage.promptTokens).toBeGreaterThan(300);
    expect(first.usage.promptTokensReused).toBe(0);
    expect(again.usage.promptTokensReused).toBe(again.usage.promptTokens - 1);
    expect(again.errors).toEqual([]);
    expect(again.toolCalls.length).toBeGreaterThan(0);
  });

  test("an agent's growing conversation evaluates only each new turn", async () => {
    let messages = ask("Find where parse is defined and fix its off-by-one.");
    let previous: GenerateOutput | undefined;
    for (let turn = 0; turn < 4; turn++) {
      const r = await rt.generate({ ...base, messages, seed: 20 + turn });
      expect(r.errors).toEqual([]);
      if (previous) {
        // The last prompt is kept up to its answer: the template renders history without the empty
        // `<think>\n\n</think>\n\n` (4 tokens) the generation prompt ends with, so the new turn starts there.
        expect(r.usage.promptTokensReused).toBe(previous.usage.promptTokens - EMPTY_THINK_TOKENS);
      }
      previous = r;
      messages = continued(messages, r);
    }
  });

  test("a request goes to the sequence that holds its prefix, and spares a long history it shares little with", async () => {
    const a = { ...base, messages: ask(`Read these files and tell me what they export:\n${"- src/lib/module.ts\n".repeat(200)}`) };
    const b = { ...base, messages: ask("Run the tests and report what fails.") };
    await rt.generate(a);
    await rt.generate(b);
    // b shares only the system prompt and tools with a: it takes the other sequence, and a stays warm.
    const again = await rt.generate(a);
    expect(again.usage.promptTokensReused).toBe(again.usage.promptTokens - 1);
    const bAgain = await rt.generate(b);
    expect(bAgain.usage.promptTokensReused).toBe(bAgain.usage.promptTokens - 1);
  });
});

describe("deterministic: true", () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 2048, sequences: 1, deterministic: true });
  });
  afterAll(async () => rt?.close());

  test("the same seed gives the same output with a cold and a warm cache", async () => {
    // Over one batch (512 tokens) of prompt, so a warm sequence keeps a whole batch and evaluates the rest.
    const long = ask(`Summarize these notes, then list the files they name:\n${"- src/parser.ts changed its tokenizer and the tests moved.\n".repeat(60)}`);
    const req: GenerateRequest = { ...base, messages: long, toolChoice: "auto", mode: "unconstrained", maxTokens: 32, temperature: 0.9, seed: 5 };
    // No tools, so no system prompt: the sequence then holds nothing of req, and req starts cold.
    await rt.generate({ messages: ask("Something else entirely."), mode: "unconstrained", maxTokens: 8, seed: 1 });
    const cold = await rt.generate(req);
    const warm = await rt.generate(req);
    expect(cold.usage.promptTokens).toBeGreaterThan(512);
    expect(cold.usage.promptTokensReused).toBe(0);
    expect(warm.usage.promptTokensReused).toBe(Math.floor((cold.usage.promptTokens - 1) / 512) * 512);
    expect(warm.tokens).toEqual(cold.tokens);
    expect(warm.raw).toBe(cold.raw);
  });
});
