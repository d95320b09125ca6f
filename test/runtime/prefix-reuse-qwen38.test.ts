// Prefix reuse on Qwen3.8's template (issue 51): the reasoning of earlier turns stays in the prompt
// (preserve_thinking, default true), so each turn of an agent's conversation, which re-renders the turns before it
// with their reasoning, still evaluates only what is new, with preserve_thinking on and off. (Wall time is measured
// by bench/prefix-reuse-qwen38.ts, not here.)

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type GenerateOutput, type GenerateRequest, type Runtime } from "../../src/index.js";
import type { ChatMessage } from "../../src/prompt/types.js";
import { tinyQwen38ModelPath } from "../helpers/models.js";

const str = { type: "string" };
const tools = [{ type: "function" as const, function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: str }, required: ["path"] } } }];

/** The assistant turn (its reasoning included) and tool results an agent sends back after `r`. */
function continued(messages: ChatMessage[], r: GenerateOutput): ChatMessage[] {
  const calls = r.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } }));
  return [
    ...messages,
    { role: "assistant", content: r.content, reasoning_content: r.reasoning, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    ...r.toolCalls.map((c): ChatMessage => ({ role: "tool", content: `contents of ${c.name}`, tool_call_id: c.id })),
  ];
}

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ model: await tinyQwen38ModelPath(), threads: 1, contextSize: 4096, sequences: 1 });
}, 300_000);
afterAll(async () => rt?.close());

describe("prefix reuse with earlier reasoning in the prompt (synthetic:qwen3.8-tiny)", () => {
  for (const preserveThinking of [true, false]) {
    test(`preserve_thinking ${preserveThinking}: each turn reuses the whole prompt before it`, async () => {
      let messages: ChatMessage[] = [{ role: "user", content: "Find where parse is defined and fix its off-by-one." }];
      const base: GenerateRequest = { messages, tools, toolChoice: "required", thinking: true, thinkingBudget: 24, maxTokens: 96, reasoningEffort: "low", preserveThinking };
      let previous: GenerateOutput | undefined;
      let withReasoning = 0;
      for (let turn = 0; turn < 4; turn++) {
        const r = await rt.generate({ ...base, messages, seed: 40 + turn });
        expect(r.errors).toEqual([]);
        if (previous) {
          // The generation prompt ended inside `<think>\n`, which the template writes again before the reasoning it
          // keeps: the previous prompt is a prefix of this one.
          expect(r.usage.promptTokensReused).toBeGreaterThanOrEqual(previous.usage.promptTokens - 1);
          expect(r.usage.promptTokens - r.usage.promptTokensReused).toBeLessThan(r.usage.promptTokens / 2);
        }
        if (r.reasoning.trim() !== "") withReasoning++;
        previous = r;
        messages = continued(messages, r);
      }
      // The history the later turns re-rendered did carry reasoning.
      expect(withReasoning).toBeGreaterThan(0);
    }, 300_000);
  }
});
