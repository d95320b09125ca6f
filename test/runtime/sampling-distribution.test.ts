// Issue 50: a constrained position draws from the model's distribution renormalized over the tokens the grammar
// allows, the distribution llama.cpp, xgrammar and LLGuidance sample from (not the first pick that happens to pass).
// The tiny model, an enum value's first token (several allowed tokens: each word's prefixes), temperature 1 and no
// top-k/top-p: 2,000 seeded draws through the runtime against the softmax read from the model at that position,
// judged by a chi-square test.

import type { Llama, LlamaContext, LlamaModel, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compileToolGrammar, createMatcher, createRuntime, normalizeTools, type GenerateRequest, type Runtime } from "../../src/index.js";
import { createLlama } from "../../src/model/index.js";
import { tinyModelPath } from "../helpers/models.js";

const DRAWS = 2000;
const WORDS = ["red", "green", "blue", "yellow", "black", "white", "orange", "purple"];
const TOOLS = [{ type: "function" as const, function: { name: "pick", description: "Pick a colour", parameters: { type: "object", properties: { color: { enum: WORDS } }, required: ["color"] } } }];

let llama: Llama;
let model: LlamaModel;
let context: LlamaContext;
let rt: Runtime;
beforeAll(async () => {
  const path = await tinyModelPath();
  rt = await createRuntime({ model: path, threads: 1, contextSize: 1024, sequences: 1, gpu: "cpu" });
  llama = await createLlama({ gpu: "cpu" });
  model = await llama.loadModel({ modelPath: path });
  context = await model.createContext({ contextSize: 1024, threads: 1 });
}, 300_000);
afterAll(async () => {
  await rt?.close();
  await context?.dispose();
  await model?.dispose();
  await llama?.dispose();
});

/**
 * The chi-square critical value for `df` degrees of freedom at tail probability 0.001 (Wilson–Hilferty: within 1% of
 * the table from 3 degrees of freedom up).
 */
function chiSquareCritical(df: number): number {
  const z = 3.0902; // the standard normal's 0.999 quantile
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

describe("sampling under the grammar", () => {
  test(`${DRAWS} draws at an enum's first token match the renormalized softmax (chi-square, p > 0.001)`, async () => {
    const req: GenerateRequest = { messages: [{ role: "user", content: "Pick a colour." }], tools: TOOLS, toolChoice: { name: "pick" }, format: "hermes", parallel: false, maxTokens: 128, temperature: 1, topP: 1, topK: 0 };
    // Where the runtime samples first: after the prompt and the envelope the grammar forces, among the allowed set.
    const grammar = compileToolGrammar(normalizeTools(TOOLS), { format: "hermes", toolChoice: { name: "pick" }, parallel: false, maxCalls: 1, maxTokens: 128, phase: "start", budgetSplit: "shared" });
    if (!grammar.ok) throw new Error(grammar.error.message);
    const matcher = await createMatcher(model, grammar.value);
    const forced = matcher.forcedContinuation(64).tokens;
    matcher.acceptAll(forced);
    const next = matcher.nextTokens();
    expect(next.kind).toBe("set");
    const allowed = next.kind === "set" ? next.tokens : [];
    expect(allowed.length).toBeGreaterThanOrEqual(WORDS.length);

    // The model's own distribution there (temperature 1, nothing cut), renormalized over the allowed set.
    const { promptTokens } = await rt.prepare(req);
    const items = [...promptTokens, ...forced] as Token[];
    const seq = context.getSequence();
    const out = await seq.controlledEvaluate(items.map((t, i) => (i === items.length - 1 ? [t, { generateNext: { probabilities: true, options: { temperature: 1, topK: 0, topP: 1, minP: 0 } } }] : t)));
    const p = out[items.length - 1]!.next!.probabilities!;
    const mass = allowed.reduce((s, t) => s + (p.get(t) ?? 0), 0);
    expect(mass).toBeGreaterThan(0);
    const expected = new Map(allowed.map((t) => [t, ((p.get(t) ?? 0) / mass) * DRAWS]));

    // The runtime's draws: the first token it sampled, per seed.
    const counts = new Map<number, number>();
    for (let seed = 1; seed <= DRAWS; seed++) {
      const r = await rt.generate({ ...req, seed });
      expect(r.tokens.slice(0, forced.length)).toEqual(forced);
      const drawn = r.tokens[forced.length]!;
      expect(allowed).toContain(drawn);
      counts.set(drawn, (counts.get(drawn) ?? 0) + 1);
    }

    // Bins with an expected count of at least 5; the rest pooled into one.
    let stat = 0;
    let bins = 0;
    let restExpected = 0;
    let restObserved = 0;
    for (const [t, e] of expected) {
      const o = counts.get(t) ?? 0;
      if (e >= 5) {
        stat += (o - e) ** 2 / e;
        bins++;
      } else {
        restExpected += e;
        restObserved += o;
      }
    }
    if (restExpected > 0) {
      stat += (restObserved - restExpected) ** 2 / Math.max(restExpected, 1e-9);
      bins++;
    }
    expect(bins, "the position must offer several likely tokens to test").toBeGreaterThanOrEqual(3);
    expect(stat, `chi-square ${stat.toFixed(2)} over ${bins} bins`).toBeLessThan(chiSquareCritical(bins - 1));
  }, 1_200_000);
});
