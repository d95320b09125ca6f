// The probability the constraint removed: the arithmetic on one distribution (allowed set, banned lists, greedy),
// the row summary (mean per token, p90), and the runtime's measurement on the synthetic tiny model: one value per
// token sampled under the grammar, each the banned mass of the model's own distribution, which covers the whole
// vocabulary.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getLlama, type Token } from "node-llama-cpp";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createRuntime, type GenerateRequest, type Runtime } from "../../src/index.js";
import { evenlySpaced, MEASURED_STEPS_PER_TURN, removedMass, summarizeRemoved, type StepMask } from "../../src/runtime/probability-removed.js";
import { tinyModelPath } from "../helpers/models.js";

const P = new Map([
  [1, 0.5],
  [2, 0.3],
  [3, 0.15],
  [4, 0.05],
]);

describe("removedMass", () => {
  test("an allowed set removes the mass outside it; banned lists remove theirs (counted once)", () => {
    expect(removedMass(P, { kind: "allowed", tokens: [2, 3, 3] }, false)).toBeCloseTo(0.55, 10);
    expect(removedMass(P, { kind: "allowed", tokens: [1, 2, 3, 4] }, false)).toBeCloseTo(0, 10);
    expect(removedMass(P, { kind: "banned", lists: [[4], [1, 4]] }, false)).toBeCloseTo(0.55, 10);
    expect(removedMass(P, { kind: "banned", lists: [[]] }, false)).toBe(0);
  });

  test("greedy: all of it when the most likely token is banned, none otherwise", () => {
    const banTop: StepMask = { kind: "banned", lists: [[1]] };
    expect(removedMass(P, banTop, true)).toBe(1);
    expect(removedMass(P, { kind: "allowed", tokens: [1] }, true)).toBe(0);
  });
});

describe("evenlySpaced", () => {
  test("all steps when few; else the first, the last and evenly between, each once", () => {
    expect(evenlySpaced([1, 2, 3], 16)).toEqual([1, 2, 3]);
    const picked = evenlySpaced(Array.from({ length: 100 }, (_, i) => i), 5);
    expect(picked).toEqual([0, 25, 50, 74, 99]);
    expect(evenlySpaced(Array.from({ length: 1000 }, (_, i) => i))).toHaveLength(MEASURED_STEPS_PER_TURN);
  });
});

describe("summarizeRemoved", () => {
  test("mean per token and the nearest-rank 90th percentile, unmeasured steps left out", () => {
    const xs = [...Array.from({ length: 9 }, () => 0.1), 1, NaN];
    const s = summarizeRemoved(xs)!;
    expect(s.steps).toBe(10);
    expect(s.meanPerToken).toBeCloseTo(0.19, 10);
    expect(s.p90).toBeCloseTo(0.1, 10);
    expect(summarizeRemoved([NaN])).toBeNull();
  });
});

describe("measured by the runtime (synthetic tiny, random weights)", () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, measureProbabilityRemoved: true });
  });
  afterAll(async () => {
    await rt?.close();
  });
  const request = (mode: "constrained" | "unconstrained", temperature: number): GenerateRequest => ({
    messages: [{ role: "user", content: "Read the file src/a.js." }],
    tools: [...HARNESS_TOOLS],
    toolChoice: "required",
    mode,
    maxTokens: 64,
    temperature,
    seed: 7,
  });

  test("one value in [0, 1] per sampled token under the grammar, most of the mass removed from a random model", async () => {
    const r = await rt.generate(request("constrained", 0.7));
    expect(r.toolCalls.length).toBeGreaterThan(0);
    const removed = r.probabilityRemoved!;
    const sampled = r.usage.completionTokens - r.usage.forcedTokens;
    expect(removed.length).toBeGreaterThan(0);
    // Tokens sampled under the grammar, up to 16 of them (replaced samples add no token of their own: not more).
    expect(removed.length).toBeLessThanOrEqual(Math.min(sampled, MEASURED_STEPS_PER_TURN));
    for (const p of removed) expect(p >= 0 && p <= 1).toBe(true);
    // Random weights spread their mass over 151,936 tokens; a call's structure allows a handful of them.
    expect(Math.max(...removed)).toBeGreaterThan(0.5);
  });

  test("greedy decoding: each value is 0 or 1", async () => {
    const r = await rt.generate(request("constrained", 0));
    expect(r.probabilityRemoved!.length).toBeGreaterThan(0);
    for (const p of r.probabilityRemoved!) expect([0, 1]).toContain(p);
  });

  test("unconstrained turns measure nothing", async () => {
    const r = await rt.generate(request("unconstrained", 0.7));
    expect(r.probabilityRemoved).toBeUndefined();
  });
});

describe("the distribution the figure sums over", () => {
  test("the replay's sampler settings (temperature 1, no top-k, top-p or min-p) give every token of the vocabulary, summing to 1", async () => {
    const llama = await getLlama({ gpu: false });
    const model = await llama.loadModel({ modelPath: await tinyModelPath() });
    const ctx = await model.createContext({ contextSize: 256, threads: 1 });
    try {
      const seq = ctx.getSequence();
      const tokens = model.tokenize("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", true);
      const options = { temperature: 1, topK: 0, topP: 1, minP: 0 };
      const out = await seq.controlledEvaluate(tokens.map((t, i): Token | [Token, { generateNext: { probabilities: true; options: typeof options } }] => (i === tokens.length - 1 ? [t, { generateNext: { probabilities: true, options } }] : t)));
      const probs = out[tokens.length - 1]!.next!.probabilities!;
      expect(probs.size).toBe(151_936);
      let sum = 0;
      for (const p of probs.values()) sum += p;
      // float32 probabilities, summed over 151,936 of them
      expect(sum).toBeCloseTo(1, 2);
    } finally {
      await ctx.dispose();
      await model.dispose();
    }
  });
});
