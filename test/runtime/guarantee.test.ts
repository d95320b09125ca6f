// The constrained-mode guarantee, through the public API with the synthetic tiny model (random weights, an
// adversary): every seeded request with tool choice required or a named function returns at least one call,
// every call valid, none truncated, for both formats, the 5 harness tools and budgets from 48 to 512 tokens.
// The same requests unconstrained return whatever the model wrote, judged by the same parser, without throwing.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type GenerateOutput, type GenerateRequest, type Runtime } from "../../src/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { tinyModelPath } from "../helpers/models.js";

const RUNS = 500;
/** Unconstrained twins run for every UNCONSTRAINED_EVERY-th request (they always run to the limit: slow). */
const UNCONSTRAINED_EVERY = 5;
const CONCURRENCY = 4;
const NAMES = HARNESS_TOOLS.map((t) => t.function.name);

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1280, sequences: CONCURRENCY });
});
afterAll(async () => {
  await rt?.close();
});

/** Request i of the sweep: format, tool choice, budget and seed all vary with i. */
function request(i: number): GenerateRequest {
  return {
    messages: [{ role: "user", content: `Task ${i}: look around the project and fix the failing test.` }],
    tools: [...HARNESS_TOOLS],
    format: i % 2 === 0 ? "hermes" : "qwen3coder",
    toolChoice: i % 3 === 0 ? "required" : { name: NAMES[i % NAMES.length]! },
    maxTokens: 48 + ((i * 97) % 465),
    seed: 1000 + i,
  };
}

async function pool<T>(count: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await run(i);
      }
    }),
  );
  return out;
}

/** What is wrong with a constrained result, or undefined when it keeps the guarantee. */
function violation(req: GenerateRequest, r: GenerateOutput): string | undefined {
  if (r.toolCalls.length === 0) return `no call (finish ${r.finishReason}, raw ${JSON.stringify(r.raw.slice(0, 200))})`;
  if (r.errors.length > 0) return `errors ${r.errors.map((e) => `${e.reason}: ${e.message}`).join("; ")} in ${JSON.stringify(r.raw)}`;
  if (r.diagnostics.detected !== r.toolCalls.length) return `detected ${r.diagnostics.detected} blocks, ${r.toolCalls.length} valid`;
  if (r.finishReason !== "tool_calls") return `finish ${r.finishReason}`;
  if (r.usage.completionTokens > req.maxTokens!) return `${r.usage.completionTokens} tokens over the ${req.maxTokens} budget`;
  const name = typeof req.toolChoice === "object" ? req.toolChoice.name : undefined;
  if (name && r.toolCalls.some((c) => c.name !== name)) return `called ${r.toolCalls.map((c) => c.name).join(",")} instead of ${name}`;
  if (r.format !== req.format) return `format ${r.format}`;
  return undefined;
}

describe("constrained guarantee", () => {
  test(`${RUNS} seeded constrained generations (hermes + qwen3coder, 5 harness tools, required + named, 48–512 tokens): 100% ≥1 call, all valid, none truncated`, async () => {
    const results = await pool(RUNS, (i) => rt.generate(request(i)));
    const failures = results.flatMap((r, i) => {
      const why = violation(request(i), r);
      return why === undefined ? [] : [`#${i} ${JSON.stringify(request(i).toolChoice)} ${request(i).format} max ${request(i).maxTokens}: ${why}`];
    });
    expect(failures).toEqual([]);
    // Both formats and every tool were exercised.
    expect(new Set(results.map((r) => r.format))).toEqual(new Set(["hermes", "qwen3coder"]));
    expect(new Set(results.flatMap((r) => r.toolCalls.map((c) => c.name)))).toEqual(new Set(NAMES));
  }, 1_800_000);

  test(`the same requests unconstrained (every ${UNCONSTRAINED_EVERY}th: ${RUNS / UNCONSTRAINED_EVERY}) return the model's text, judged by the parser, without throwing`, async () => {
    const picked = Array.from({ length: RUNS / UNCONSTRAINED_EVERY }, (_, k) => k * UNCONSTRAINED_EVERY);
    const results = await pool(picked.length, (k) => rt.generate({ ...request(picked[k]!), mode: "unconstrained" }));
    for (const [k, r] of results.entries()) {
      const req = request(picked[k]!);
      expect(r.mode).toBe("unconstrained");
      expect(r.usage.completionTokens).toBeLessThanOrEqual(req.maxTokens!);
      expect(["stop", "length", "tool_calls"]).toContain(r.finishReason);
      // Judged by the parser: every detected block is either a valid call or an error with a reason.
      expect(r.diagnostics.detected).toBe(r.toolCalls.length + r.errors.length);
    }
  }, 1_800_000);
});
