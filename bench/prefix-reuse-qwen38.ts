// Owns: the wall-time side of issue 51's prefix-reuse check: time to first token of an agent's first turn against
// its repeat turns on the Qwen3.8 stand-in (its template keeps earlier reasoning in the prompt), with
// preserve_thinking on and off, each mode on a fresh runtime (a cold cache for its first turn). Prints the medians
// and the ratio, and writes JSON (default bench/results/prefix-reuse-qwen38.json). Run after `npx tsc -p
// bench/tsconfig.json`: `node dist-bench/prefix-reuse-qwen38.js [--model synthetic:qwen3.8-0.6b] [--turns 3]
// [--system-tokens 10000]`.
//
// The first prompt is agent-sized: an agent sends its whole system prompt and tool list on turn one, and the ratio
// is the first prompt's evaluation against a repeat turn's new tokens (the tool result and the turn markup, ~70),
// so a short first prompt caps it whatever the cache does (809 tokens: at most ~11.6×).

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createRuntime, type ChatMessage, type GenerateOutput, type GenerateRequest, type Runtime } from "../dist/index.js";
import { HARNESS_TOOLS } from "./lib/internals.js";
import { readBenchFlags } from "./lib/script-args.js";

const flags = readBenchFlags("prefix-reuse-qwen38", {
  model: { type: "string", default: "synthetic:qwen3.8-0.6b" },
  turns: { type: "string", default: "3" },
  threads: { type: "string", default: "2" },
  gpu: { type: "string", default: "cpu" },
  out: { type: "string", default: "bench/results/prefix-reuse-qwen38.json" },
  /**
   * Tokens the first request should reach (system prompt grown with agent rules; 0: the short system line only).
   * Claude Code 2.1.332's first request, captured from `claude -p` and counted by qtc serve's count_tokens under
   * the Qwen3.8 template, is 10,154 tokens (its system prompt and 11 tools). Default: 10000.
   */
  "system-tokens": { type: "string", default: "10000" },
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

const RULES = [
  "Read a file before you edit it, and keep each edit to the lines the task needs.",
  "Run the tests after each change; when a test fails, read its message before you change code again.",
  "Never run commands that delete files outside the workspace, and ask before installing packages.",
  "Prefer the project's existing helpers over new ones; match the surrounding style and naming.",
  "When a command's output is long, read the part that explains the failure first.",
];

/** The short system line grown with numbered agent rules until the first request holds about `target` tokens. */
function agentSystem(rt: Runtime, request: GenerateRequest, target: number): string {
  const short = "You are a careful coding agent.";
  if (target <= 0) return short;
  const sized = (rules: number) =>
    [short, ...Array.from({ length: rules }, (_, i) => `${i + 1}. ${RULES[i % RULES.length]}`)].join("\n");
  const count = (rules: number) => rt.countTokens!({ ...request, messages: [{ role: "system", content: sized(rules) }, ...request.messages.slice(1)] });
  const perRule = Math.max(1, (count(100) - count(0)) / 100);
  return sized(Math.max(0, Math.round((target - count(0)) / perRule)));
}

const rows = [];
for (const preserveThinking of [true, false]) {
  const rt = await createRuntime({ model: flags.model!, threads: Number(flags.threads), contextSize: Number(flags["system-tokens"]) + 8192, sequences: 1, gpu: flags.gpu as "cpu" });
  let messages: ChatMessage[] = [{ role: "system", content: "You are a careful coding agent." }, { role: "user", content: TASK }];
  const base: GenerateRequest = { messages, tools: [...HARNESS_TOOLS], toolChoice: "required", thinking: true, thinkingBudget: 16, maxTokens: 48, reasoningEffort: "low", preserveThinking };
  messages = [{ role: "system", content: agentSystem(rt, base, Number(flags["system-tokens"])) }, { role: "user", content: TASK }];
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
writeFileSync(flags.out!, JSON.stringify({ model: flags.model, threads: Number(flags.threads), systemTokens: Number(flags["system-tokens"]), rows }, null, 2) + "\n");
