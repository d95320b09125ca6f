// The constrained guarantee for the Qwen3.5 / Qwen3.6 family (format qwen35), through the public API with the
// synthetic stand-in `synthetic:qwen3.5-tiny` (Qwen3.5's special ids and template, random weights: an
// adversary). Every tool choice (auto, required, a named function, none) × thinking on and off × parallel on
// and off, batch and streaming, seeded: calls are valid and never cut off, "none" writes no call and no call
// opener, thinking ends in one `</think>`, and a stream ends with the same judgement as a batch turn.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { qwen35 } from "../../src/formats/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createRuntime, type GenerateRequest, type GenerateResult, type Runtime } from "../../src/index.js";
import { tinyQwen35ModelPath } from "../helpers/models.js";

const NAMES = HARNESS_TOOLS.map((t) => t.function.name);
const CHOICES = ["auto", "required", "named", "none"] as const;
const THINKING = [false, true] as const;
const PARALLEL = [true, false] as const;
const STREAMING = [false, true] as const;
const SEEDS = 3;
const COMBOS = CHOICES.length * THINKING.length * PARALLEL.length * STREAMING.length;
const TOTAL = COMBOS * SEEDS;

interface Case {
  choice: (typeof CHOICES)[number];
  thinking: boolean;
  parallel: boolean;
  streaming: boolean;
  seed: number;
}

const CASES: Case[] = CHOICES.flatMap((choice) =>
  THINKING.flatMap((thinking) =>
    PARALLEL.flatMap((parallel) => STREAMING.flatMap((streaming) => Array.from({ length: SEEDS }, (_, k) => ({ choice, thinking, parallel, streaming, seed: 0 })).map((c, k) => ({ ...c, seed: k })))),
  ),
).map((c, i) => ({ ...c, seed: 7000 + i }));

function requestOf(c: Case, i: number): GenerateRequest {
  return {
    messages: [{ role: "user", content: `Task ${i}: look around the project and fix the failing test.` }],
    tools: [...HARNESS_TOOLS],
    toolChoice: c.choice === "named" ? { name: NAMES[i % NAMES.length]! } : c.choice,
    thinking: c.thinking,
    parallel: c.parallel,
    maxTokens: 96 + ((i * 53) % 320),
    seed: c.seed,
  };
}

/** One turn, batch or streamed; for a stream, what its events showed besides the final result. */
async function run(rt: Runtime, req: GenerateRequest, streaming: boolean): Promise<{ r: GenerateResult; streamedCalls?: number; streamedText?: string }> {
  if (!streaming) return { r: await rt.generate(req) };
  let streamedCalls = 0;
  let streamedText = "";
  for await (const e of rt.stream(req)) {
    if (e.type === "tool-call") streamedCalls++;
    else if (e.type === "text-delta") streamedText += e.text;
    else if (e.type === "done") return { r: e.result, streamedCalls, streamedText };
  }
  throw new Error("the stream ended without a done event");
}

/** What is wrong with a result, or undefined when it keeps the guarantee for its case. */
function violation(c: Case, req: GenerateRequest, out: Awaited<ReturnType<typeof run>>): string | undefined {
  const { r } = out;
  if (r.errors.length > 0) return `errors ${r.errors.map((e) => `${e.reason}: ${e.message}`).join("; ")}`;
  if (r.diagnostics.detected !== r.toolCalls.length) return `detected ${r.diagnostics.detected} blocks, ${r.toolCalls.length} valid`;
  if (r.usage.completionTokens > req.maxTokens!) return `${r.usage.completionTokens} tokens over the ${req.maxTokens} budget`;
  if (r.format !== "qwen35") return `format ${r.format}`;
  const closes = r.raw.split("</think>").length - 1;
  if (c.thinking !== (closes === 1) || closes > 1) return `${closes} </think> with thinking ${c.thinking}`;
  if (c.choice === "none") {
    if (r.toolCalls.length > 0 || r.raw.includes(qwen35.open.text) || /(^|\n)[ \t]*<function=/.test(r.raw)) return "a call under none";
  } else if (c.choice !== "auto") {
    if (r.toolCalls.length === 0) return `no call (finish ${r.finishReason})`;
    if (r.finishReason !== "tool_calls") return `finish ${r.finishReason}`;
    if (!c.parallel && r.toolCalls.length !== 1) return `${r.toolCalls.length} calls without parallel`;
    const name = typeof req.toolChoice === "object" ? req.toolChoice.name : undefined;
    if (name && r.toolCalls.some((t) => t.name !== name)) return `called ${r.toolCalls.map((t) => t.name).join(",")} instead of ${name}`;
  } else if (r.toolCalls.length > 0 && r.finishReason !== "tool_calls") {
    return `calls but finish ${r.finishReason}`;
  }
  if (out.streamedCalls !== undefined && (out.streamedCalls !== r.toolCalls.length || out.streamedText !== r.content)) {
    return `stream showed ${out.streamedCalls} calls and ${JSON.stringify(out.streamedText)}, result ${r.toolCalls.length} and ${JSON.stringify(r.content)}`;
  }
  return undefined;
}

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ model: await tinyQwen35ModelPath(), threads: 1, contextSize: 1536 });
});
afterAll(async () => {
  await rt?.close();
});

describe("constrained guarantee, qwen35 (Qwen3.5 / Qwen3.6)", () => {
  test(`${TOTAL} seeded constrained generations (${CHOICES.length} tool choices × thinking on/off × parallel on/off × batch/streaming × ${SEEDS} seeds): all valid, none cut off`, async () => {
    expect(rt.format).toBe("qwen35");
    const failures: string[] = [];
    const calls = new Map<string, number>();
    for (const [i, c] of CASES.entries()) {
      const req = requestOf(c, i);
      const out = await run(rt, req, c.streaming);
      const why = violation(c, req, out);
      if (why) failures.push(`#${i} ${JSON.stringify(c)}: ${why} in ${JSON.stringify(out.r.raw.slice(0, 300))}`);
      calls.set(c.choice, (calls.get(c.choice) ?? 0) + out.r.toolCalls.length);
    }
    expect(failures).toEqual([]);
    expect(CASES).toHaveLength(TOTAL);
    // The forced choices produced calls (the checks above were not vacuous); "none" produced none.
    expect(calls.get("required")).toBeGreaterThanOrEqual(CASES.filter((c) => c.choice === "required").length);
    expect(calls.get("named")).toBeGreaterThanOrEqual(CASES.filter((c) => c.choice === "named").length);
    expect(calls.get("none")).toBe(0);
  }, 1_800_000);
});
