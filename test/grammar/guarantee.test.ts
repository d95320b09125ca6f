// The guarantee, with the synthetic tiny model (random weights: the adversary). For 10 corpus schemas × both
// formats × tool choice `required`, 50 seeded constrained generations each, with maxTokens spread from the
// smallest budget the call fits (at least 64) to 512: every output is valid calls for the post-parser, and none is
// cut off by the budget (the turn ends when the grammar ends, or by the runtime's rule that a turn ends after a
// call when fewer tokens are left than one more call may take). Each call also stays within the grammar's
// worst-case size (bytes, tags counted as one token each), and the adversary gets close to it: the budget is
// exercised, not just respected.

import type { LlamaContext, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFormat } from "../../src/formats/index.js";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { parse } from "../../src/parse/index.js";
import { Generator } from "./generate.js";
import { type CorpusEntry, loadCorpus, tinyModel } from "./helpers.js";

const SCHEMAS = [
  "harness-read-file",
  "harness-grep",
  "enum-weather",
  "nested-object",
  "array-of-objects",
  "optional-params",
  "numeric-bounds",
  "recursive-tree",
  "formats",
  "additional-schema",
];
const RUNS = 50;
const FORMATS = ["hermes", "qwen3coder"] as const;
const PROMPT = "<|im_start|>user\nDo the task with a tool.<|im_end|>\n<|im_start|>assistant\n";

const corpus = new Map(loadCorpus().map((e) => [e.name, e]));
let model: LlamaModel;
let context: LlamaContext;
let generator: Generator;
let total = 0;

beforeAll(async () => {
  ({ model } = await tinyModel());
  context = await model.createContext({ contextSize: 1024, threads: 1, sequences: 1 });
  generator = new Generator(model, context.getSequence());
});

afterAll(async () => {
  await context?.dispose();
});

/** The smallest maxTokens from 64 up for which a call to the tool fits in both formats. */
function leastBudget(entry: CorpusEntry): number {
  for (let n = 64; n <= 512; n++) {
    if (FORMATS.every((format) => compileToolGrammar([entry.tool], { format, toolChoice: "required", maxTokens: n, budgetSplit: "worst-case" }).ok)) return n;
  }
  throw new Error(`${entry.name}: no call fits 512 tokens`);
}

describe("constrained generation with the tiny synthetic model", () => {
  for (const name of SCHEMAS) {
    const entry = corpus.get(name)!;
    for (const format of FORMATS) {
      it(`${name} × ${format}: ${RUNS} seeded generations under tool choice required are valid calls, none cut off`, async () => {
        const lo = leastBudget(entry);
        expect(lo).toBeGreaterThanOrEqual(64);
        const failures: string[] = [];
        let closest = 0;
        for (let i = 0; i < RUNS; i++) {
          const maxTokens = lo + Math.round((i * (512 - lo)) / (RUNS - 1));
          // The grammar alone, no runtime guard: the worst-case split's promise (the shared default needs the guard).
          const compiled = compileToolGrammar([entry.tool], { format, toolChoice: "required", maxTokens, maxCalls: 3, budgetSplit: "worst-case" });
          if (!compiled.ok) throw new Error(`${compiled.error.code}: ${compiled.error.message}`);
          const seed = 1 + i + 1000 * SCHEMAS.indexOf(name) + (format === "hermes" ? 0 : 500);
          const g = await generator.run(compiled.value, { maxTokens, seed, prompt: PROMPT });
          const parsed = parse(g.text, { tools: [entry.tool], format });
          const worst = compiled.value.worstCaseCallTokens - 1;
          const { open, close } = getFormat(format);
          const sizes = parsed.calls.map((c) => Buffer.byteLength(c.raw) - open.text.length - close.text.length + 2);
          closest = Math.max(closest, ...sizes.map((b) => b / worst));
          const problems = [
            sizes.some((b) => b > worst) ? `a call of ${Math.max(...sizes)} bytes over the worst case ${worst}` : "",
            g.stop === "cut-off" || g.tokens > maxTokens ? `cut off at ${g.tokens}/${maxTokens} tokens` : "",
            parsed.calls.length === 0 ? "no call" : "",
            parsed.errors.length > 0 ? parsed.errors.map((e) => `${e.reason}: ${e.message}`).join("; ") : "",
            parsed.diagnostics.detected !== parsed.calls.length ? `${parsed.diagnostics.detected} blocks, ${parsed.calls.length} valid` : "",
          ].filter(Boolean);
          if (problems.length > 0) failures.push(`seed ${seed}, maxTokens ${maxTokens}: ${problems.join(", ")} in ${JSON.stringify(g.text)}`);
          total++;
        }
        expect(failures).toEqual([]);
        expect(closest, "largest call / worst case").toBeGreaterThanOrEqual(0.8);
      });
    }
  }

  it(`ran ${SCHEMAS.length} schemas × ${FORMATS.length} formats × ${RUNS} = ${SCHEMAS.length * FORMATS.length * RUNS} generations`, () => {
    expect(total).toBe(SCHEMAS.length * FORMATS.length * RUNS);
  });
});
