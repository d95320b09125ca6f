// The constrained-guarantee sweep shared by guarantee-hermes.test.ts and guarantee-qwen3coder.test.ts (one
// file per format, so the two run in parallel): 250 seeded requests each, 500 in all, through the public API
// with the synthetic tiny model (random weights, an adversary). Tool choice required or a named function (the
// 5 harness tools), budgets from 48 to 512 tokens. Every constrained result must hold at least one call,
// every call valid, none truncated; the same requests unconstrained (all of them: they run to the token limit,
// which takes a few minutes) return whatever the model wrote, judged by the parser, without throwing.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { FormatId } from "../../src/formats/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createRuntime, type GenerateOutput, type GenerateRequest, type Runtime } from "../../src/index.js";
import { tinyModelPath } from "../helpers/models.js";

export const RUNS_PER_FORMAT = 250;
const CONCURRENCY = 4;
const NAMES = HARNESS_TOOLS.map((t) => t.function.name);

/** Request i of the sweep: tool choice, budget and seed vary with i (i = 0..499 over both formats). */
export function sweepRequest(i: number, format: FormatId): GenerateRequest {
  return {
    messages: [{ role: "user", content: `Task ${i}: look around the project and fix the failing test.` }],
    tools: [...HARNESS_TOOLS],
    format,
    toolChoice: i % 3 === 0 ? "required" : { name: NAMES[i % NAMES.length]! },
    maxTokens: 48 + ((i * 97) % 465),
    seed: 1000 + i,
  };
}

async function pool<T>(count: number, run: (k: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const k = next++;
        out[k] = await run(k);
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

/** Register the sweep's tests for one format; `offset` spreads request numbers over both files. */
export function guaranteeSweep(format: FormatId, offset: number): void {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1280, sequences: CONCURRENCY });
  });
  afterAll(async () => {
    await rt?.close();
  });
  const indexes = Array.from({ length: RUNS_PER_FORMAT }, (_, k) => offset + 2 * k);

  describe(`constrained guarantee, ${format}`, () => {
    test(`${RUNS_PER_FORMAT} seeded constrained ${format} generations (of 500 over both formats; 5 harness tools, required + named, 48–512 tokens): 100% ≥1 call, all valid, none truncated`, async () => {
      const results = await pool(indexes.length, (k) => rt.generate(sweepRequest(indexes[k]!, format)));
      const failures = results.flatMap((r, k) => {
        const req = sweepRequest(indexes[k]!, format);
        const why = violation(req, r);
        return why === undefined ? [] : [`#${indexes[k]} ${JSON.stringify(req.toolChoice)} max ${req.maxTokens}: ${why}`];
      });
      expect(failures).toEqual([]);
      expect(results).toHaveLength(RUNS_PER_FORMAT);
      expect(new Set(results.flatMap((r) => r.toolCalls.map((c) => c.name)))).toEqual(new Set(NAMES));
    }, 1_800_000);

    test(`the same ${indexes.length} ${format} requests unconstrained return the model's text, judged by the parser, without throwing`, async () => {
      const results = await pool(indexes.length, (k) => rt.generate({ ...sweepRequest(indexes[k]!, format), mode: "unconstrained" }));
      for (const [k, r] of results.entries()) {
        const req = sweepRequest(indexes[k]!, format);
        expect(r.mode).toBe("unconstrained");
        expect(r.usage.completionTokens).toBeLessThanOrEqual(req.maxTokens!);
        expect(["stop", "length", "tool_calls"]).toContain(r.finishReason);
        // Judged by the parser: every detected block is a valid call or an error with a reason.
        expect(r.diagnostics.detected).toBe(r.toolCalls.length + r.errors.length);
      }
      expect(new Set(indexes.map((i) => JSON.stringify(sweepRequest(i, format).toolChoice))).size).toBe(NAMES.length + 1);
    }, 1_800_000);
  });
}
