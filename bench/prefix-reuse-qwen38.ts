// Owns: the wall-time side of issue 51's prefix-reuse check: time to first token of an agent's first turn against
// its repeat turns on the Qwen3.8 stand-in (its template keeps earlier reasoning in the prompt), with
// preserve_thinking on and off, each mode on a fresh runtime (a cold cache for its first turn). Prints the medians
// and the ratio, and writes JSON (default bench/results/prefix-reuse-qwen38.json). Run after `npx tsc -p
// bench/tsconfig.json`: `node dist-bench/prefix-reuse-qwen38.js [--model synthetic:qwen3.8-0.6b] [--turns 3]`.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createRuntime, type ChatMessage, type GenerateOutput, type GenerateRequest } from "../dist/index.js";
import { HARNESS_TOOLS } from "./lib/internals.js";
import { readBenchFlags } from "./lib/script-args.js";

const flags = readBenchFlags("prefix-reuse-qwen38", {
  model: { type: "string", default: "synthetic:qwen3.8-0.6b" },
  turns: { type: "string", default: "3" },
  threads: { type: "string", default: "2" },
  gpu: { type: "string", default: "cpu" },
  out: { type: "string", default: "bench/results/prefix-reuse-qwen38.json" },
});

const TASK = "The tests in test/parse.test.js fail with an off-by-one in src/parse.js. Read the files you need, find the bug and fix it. ".repeat(4);

function continued(messages: ChatMessage[], r: GenerateOutput): ChatMessage[] {
  const calls = r.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } }));
  return [
    ...messages,
    { role: "assistant", content: r.content, reasoning_content: r.reasoning, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    ...r.toolCalls.map((c): ChatMessage => ({ role: "tool", content: `export function parse(s) {\n  return s.slice(1);\n}\n// ${c.name}`, tool_call_id: c.id })),
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const rows = [];
for (const preserveThinking of [true, false]) {
  const rt = await createRuntime({ model: flags.model!, threads: Number(flags.threads), contextSize: 8192, sequences: 1, gpu: flags.gpu as "cpu" });
  let messages: ChatMessage[] = [{ role: "system", content: "You are a careful coding agent." }, { role: "user", content: TASK }];
  const base: GenerateRequest = { messages, tools: [...HARNESS_TOOLS], toolChoice: "required", thinking: true, thinkingBudget: 16, maxTokens: 48, reasoningEffort: "low", preserveThinking };
  const turns: Array<{ ttftMs: number; promptTokens: number; reused: number; reasoningChars: number }> = [];
  for (let t = 0; t < Number(flags.turns); t++) {
    const r = await rt.generate({ ...base, messages, seed: 100 + t });
    turns.push({ ttftMs: r.timings.timeToFirstTokenMs, promptTokens: r.usage.promptTokens, reused: r.usage.promptTokensReused ?? 0, reasoningChars: (r.reasoning ?? "").length });
    messages = continued(messages, r);
  }
  await rt.close();
  const first = turns[0]!.ttftMs;
  const repeat = median(turns.slice(1).map((x) => x.ttftMs));
  rows.push({ preserveThinking, firstTtftMs: first, repeatTtftMsMedian: repeat, ratio: first / repeat, turns });
  process.stdout.write(
    `preserve_thinking ${preserveThinking}: first turn TTFT ${first.toFixed(0)} ms (${turns[0]!.promptTokens} prompt tokens), repeat turns median ${repeat.toFixed(0)} ms → ${(first / repeat).toFixed(1)}×; ` +
      `reused ${turns.slice(1).map((x) => `${x.reused}/${x.promptTokens}`).join(", ")}\n`,
  );
}
mkdirSync(dirname(flags.out!), { recursive: true });
writeFileSync(flags.out!, JSON.stringify({ model: flags.model, threads: Number(flags.threads), rows }, null, 2) + "\n");
