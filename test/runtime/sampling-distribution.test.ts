// Issue 50: a constrained position draws from the model's distribution renormalized over the tokens the grammar
// allows, the distribution llama.cpp, xgrammar and LLGuidance sample from (not the first pick that happens to pass).
// The tiny model, temperature 1 and no top-k/top-p: 2,000 seeded draws through the runtime against the softmax read
// from the model at that position, judged by a chi-square test. Two positions: an enum value's first token (several
// allowed tokens: each word's prefixes), and the first character of a string of at most 2 characters, free text
// where most of the vocabulary is refused (a path that sampled under a loose bias and replaced a refused token by
// its allowed prefix moved that token's mass onto the prefix: the second test fails there).

import type { Llama, LlamaContext, LlamaModel, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compileToolGrammar, createMatcher, createRuntime, normalizeTools, type GenerateRequest, type Runtime, type ToolInput } from "../../src/index.js";
import { createLlama } from "../../src/model/index.js";
import { computeTokenTables } from "../../src/model/vocabulary.js";
import { tinyModelPath } from "../helpers/models.js";

const DRAWS = 2000;
const WORDS = ["red", "green", "blue", "yellow", "black", "white", "orange", "purple"];
const TOOLS = [{ type: "function" as const, function: { name: "pick", description: "Pick a colour", parameters: { type: "object", properties: { color: { enum: WORDS } }, required: ["color"] } } }];
const SHORT = [{ type: "function" as const, function: { name: "tag", description: "Tag it", parameters: { type: "object", properties: { tag: { type: "string", maxLength: 2 } }, required: ["tag"] } } }];

let llama: Llama;
let model: LlamaModel;
let context: LlamaContext;
let rt: Runtime;
let vocabSize: number;
beforeAll(async () => {
  const path = await tinyModelPath();
  rt = await createRuntime({ model: path, threads: 1, contextSize: 1024, sequences: 1, gpu: "cpu" });
  llama = await createLlama({ gpu: "cpu" });
  model = await llama.loadModel({ modelPath: path });
  context = await model.createContext({ contextSize: 1024, threads: 1 });
  vocabSize = computeTokenTables(model).vocabSize;
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

/** Chi-square of observed against expected counts per bin; bins expected under 5 are pooled into one. */
function chiSquare(expected: ReadonlyMap<string, number>, observed: ReadonlyMap<string, number>): { stat: number; bins: number } {
  let stat = 0;
  let bins = 0;
  let restExpected = 0;
  let restObserved = 0;
  for (const [key, e] of expected) {
    const o = observed.get(key) ?? 0;
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
  return { stat, bins };
}

/**
 * The runtime's first sampled token under `toolChoice: name`, DRAWS seeds, binned by `binOf`, against the model's
 * softmax at that position renormalized over the allowed tokens (binned alike); expects the chi-square under the
 * critical value at p = 0.001, and every drawn token allowed.
 */
async function drawsMatchSoftmax(tools: ToolInput[], name: string, binOf: (token: number) => string): Promise<void> {
  const req: GenerateRequest = { messages: [{ role: "user", content: "Go." }], tools, toolChoice: { name }, format: "hermes", parallel: false, maxTokens: 64, temperature: 1, topP: 1, topK: 0 };
  // Where the runtime samples first: after the prompt and the envelope the grammar forces, among the allowed set.
  const grammar = compileToolGrammar(normalizeTools(tools), { format: "hermes", toolChoice: { name }, parallel: false, maxCalls: 1, maxTokens: 64, phase: "start", budgetSplit: "shared" });
  if (!grammar.ok) throw new Error(grammar.error.message);
  const matcher = await createMatcher(model, grammar.value);
  const forced = matcher.forcedContinuation(64).tokens;
  matcher.acceptAll(forced);
  // Every token the grammar takes there, asked one by one (not the mask under test).
  const allowed = new Set(Array.from({ length: vocabSize }, (_, t) => t).filter((t) => matcher.canBeNext(t)));
  expect(allowed.size).toBeGreaterThanOrEqual(WORDS.length);

  // The model's own distribution there (temperature 1, nothing cut), renormalized over the allowed set.
  const { promptTokens } = await rt.prepare(req);
  const items = [...promptTokens, ...forced] as Token[];
  const seq = context.getSequence();
  try {
    const out = await seq.controlledEvaluate(items.map((t, i) => (i === items.length - 1 ? [t, { generateNext: { probabilities: true, options: { temperature: 1, topK: 0, topP: 1, minP: 0 } } }] : t)));
    const p = out[items.length - 1]!.next!.probabilities!;
    let mass = 0;
    for (const t of allowed) mass += p.get(t as Token) ?? 0;
    expect(mass).toBeGreaterThan(0);
    const expected = new Map<string, number>();
    for (const t of allowed) expected.set(binOf(t), (expected.get(binOf(t)) ?? 0) + ((p.get(t as Token) ?? 0) / mass) * DRAWS);

    // The runtime's draws: the first token it sampled, per seed.
    const counts = new Map<string, number>();
    for (let seed = 1; seed <= DRAWS; seed++) {
      const r = await rt.generate({ ...req, seed });
      expect(r.tokens.slice(0, forced.length)).toEqual(forced);
      const drawn = r.tokens[forced.length]!;
      expect(allowed.has(drawn)).toBe(true);
      counts.set(binOf(drawn), (counts.get(binOf(drawn)) ?? 0) + 1);
    }
    const { stat, bins } = chiSquare(expected, counts);
    expect(bins, "the position must offer several likely bins to test").toBeGreaterThanOrEqual(3);
    expect(stat, `chi-square ${stat.toFixed(2)} over ${bins} bins`).toBeLessThan(chiSquareCritical(bins - 1));
  } finally {
    seq.dispose();
  }
}

/** A token's shape: its length in characters (1, 2, more) and its first character's kind. */
function shapeOf(token: number): string {
  const text = model.detokenize([token as Token], false);
  const first = text[0] ?? "";
  const kind = first === '"' ? "quote" : /[a-z]/i.test(first) ? "letter" : /[0-9]/.test(first) ? "digit" : first === " " ? "space" : "other";
  return `${Math.min([...text].length, 3)}:${kind}`;
}

describe("sampling under the grammar", () => {
  test(`${DRAWS} draws at an enum's first token match the renormalized softmax (chi-square, p > 0.001)`, async () => {
    await drawsMatchSoftmax(TOOLS, "pick", (t) => String(t));
  }, 1_200_000);

  test(`${DRAWS} draws at a maxLength-2 string's first character (free text) match the renormalized softmax, binned by token shape`, async () => {
    await drawsMatchSoftmax(SHORT, "tag", shapeOf);
  }, 1_200_000);
});
