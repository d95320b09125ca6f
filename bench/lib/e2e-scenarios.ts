// Owns: the scenarios of `npm run bench:e2e`: the same prompt repeated, an agent's growing conversation, and
// many requests at once; each runs on any E2eEngine and returns its timed samples.

import type { ChatMessage } from "../../dist/prompt/index.js";
import type { DecodePassTally } from "../../dist/runtime/decode-passes.js";
import type { E2eEngine, E2eRequest, E2eSample } from "./e2e-engines.js";

/** The one-turn task: a 390-token-ish prompt (system prompt, 5 harness tools, one user line). */
export const E2E_USER = "The tests in test/parse.test.js fail. Find the bug in src/parse.js and fix it.";

export const SYSTEM = "You are a coding agent working in a small JavaScript project. Use the tools to inspect and fix it.";

export const firstMessages = (user = E2E_USER): ChatMessage[] => [
  { role: "system", content: SYSTEM },
  { role: "user", content: user },
];

/** A sample with where it came from. */
export interface Row extends E2eSample {
  engine: string;
  scenario: "repeat" | "agent" | "parallel";
  mode: "constrained" | "free";
  /** Request index in its series (repeat), turn (agent), or concurrency (parallel). */
  index: number;
}

const rowOf = (s: E2eSample, engine: string, scenario: Row["scenario"], mode: Row["mode"], index: number): Row => ({ ...s, engine, scenario, mode, index });

/**
 * The same prompt `times` times, constrained, then free over as many tokens as the constrained call took (the
 * end-to-end ratio compares the same amount of output). The first constrained request starts cold.
 */
export async function repeatScenario(engine: E2eEngine, times: number, maxTokens: number): Promise<Row[]> {
  const rows: Row[] = [];
  const request: E2eRequest = { messages: firstMessages(), constrained: true, maxTokens, seed: 7 };
  for (let i = 0; i < times; i++) rows.push(rowOf(await engine.complete({ ...request, seed: 7 + i }), engine.name, "repeat", "constrained", i));
  for (let i = 0; i < times; i++) {
    const tokens = Math.max(1, rows[i]!.completionTokens);
    rows.push(rowOf(await engine.complete({ ...request, constrained: false, maxTokens: tokens, seed: 7 + i }), engine.name, "repeat", "free", i));
  }
  return rows;
}

/** Canned tool results: the same text whatever the engine called, so only the calls differ between engines. */
function toolResult(name: string, turn: number): string {
  if (name === "read_file") return `export function parse(s) {\n  return s.split(",").slice(1); // turn ${turn}\n}\n`;
  if (name === "run_tests") return `not ok 1 - parse keeps the first field\n# tests 3, pass 2, fail 1 (turn ${turn})`;
  if (name === "list_files") return "src/parse.js\nsrc/index.js\ntest/parse.test.js\npackage.json";
  if (name === "grep") return "src/parse.js:2:  return s.split(\",\").slice(1);";
  return "wrote 1 file";
}

/**
 * An agent run of `turns` turns, constrained: each turn's calls go back with canned results, the history grows,
 * and each request sends it all (what an agent loop or a chat client does).
 */
export async function agentScenario(engine: E2eEngine, turns: number, maxTokens: number): Promise<Row[]> {
  const rows: Row[] = [];
  const messages = firstMessages();
  for (let turn = 0; turn < turns; turn++) {
    const sample = await engine.complete({ messages: [...messages], constrained: true, maxTokens, seed: 40 + turn });
    rows.push(rowOf(sample, engine.name, "agent", "constrained", turn));
    const calls = sample.calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } }));
    messages.push({ role: "assistant", content: "", ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    for (const c of sample.calls) messages.push({ role: "tool", content: toolResult(c.name, turn), tool_call_id: c.id, name: c.name });
    if (calls.length === 0) messages.push({ role: "user", content: "Use a tool." });
  }
  return rows;
}

/** Aggregate throughput of `n` concurrent constrained requests (distinct users, the same tools). */
export interface ParallelResult {
  engine: string;
  concurrency: number;
  completionTokens: number;
  wallMs: number;
  aggregateTps: number;
  /** The model passes of the reported round, where the engine counts them (whether the N requests shared them). */
  passes?: ReturnType<DecodePassTally["snapshot"]>;
  rows: Row[];
}

/** `n` requests at once, twice; the second round (prefixes warm, as in a busy server) is the one reported. */
export async function parallelScenario(engine: E2eEngine, n: number, maxTokens: number): Promise<ParallelResult> {
  const round = (seed: number) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        engine.complete({ messages: firstMessages(`${E2E_USER} (request ${i + 1})`), constrained: true, maxTokens, seed: seed + i }),
      ),
    );
  await round(100);
  engine.passes?.reset();
  const t0 = performance.now();
  const samples = await round(200);
  const wallMs = performance.now() - t0;
  const passes = engine.passes?.snapshot();
  const completionTokens = samples.reduce((sum, s) => sum + s.completionTokens, 0);
  return {
    engine: engine.name,
    concurrency: n,
    completionTokens,
    wallMs,
    aggregateTps: (completionTokens * 1000) / wallMs,
    ...(passes ? { passes } : {}),
    rows: samples.map((s) => rowOf(s, engine.name, "parallel", "constrained", n)),
  };
}
