// Issue 37: the grammar's per-token work grew with the tool list (llama.cpp's grammar stacks hold every
// alternative; 5.1 ms of grammar per token at 200 tools). The runtime's engine is now qtc's own matcher (its only
// one since issue 48): past the tool's name, the parser state — what each step's work scales with — and the
// allowed set are the same whether the request carries 5 tools or 200, and a 200-tool required turn through the
// library is valid with its grammar time counted. (Wall time is not asserted: the machine is shared.)

import type { Llama, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRuntime } from "../../src/index.js";
import { generatedTools } from "../../bench/lib/tool-lists.js";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { createLlama } from "../../src/model/index.js";
import { EngineVocab } from "../../src/engine/engine-vocab.js";
import { QtcMatcher } from "../../src/engine/qtc-matcher.js";
import { readVocabulary } from "../../src/model/vocabulary.js";
import { tinyModelPath } from "../helpers/models.js";

let llama: Llama;
let model: LlamaModel;
let engine: EngineVocab;

beforeAll(async () => {
  llama = await createLlama({ gpu: "cpu" });
  model = await llama.loadModel({ modelPath: await tinyModelPath(), vocabOnly: true });
  engine = readVocabulary(model).engine!;
});
afterAll(async () => {
  await model?.dispose();
  await llama?.dispose();
});

test("past the name, 200 tools leave the same parser state and allowed set as 5", () => {
  const at = (count: number) => {
    const g = compileToolGrammar(generatedTools(count), { format: "hermes", toolChoice: "required", maxTokens: 512, parallel: false });
    if (!g.ok) throw new Error(g.error.message);
    const m = QtcMatcher.create(g.value, engine);
    const prefix = model.tokenize('<tool_call>\n{"name": "tool_2", "arguments": {', true) as number[];
    expect(m.acceptAll(prefix)).toEqual(prefix);
    const next = m.nextTokens();
    return { parses: m.parses, next: next.kind === "set" ? [...next.tokens].sort((a, b) => a - b) : next.kind };
  };
  const five = at(5);
  const many = at(200);
  expect(many.parses).toBe(five.parses);
  expect(many.next).toEqual(five.next);
  expect(five.parses).toBeLessThanOrEqual(4);
});

test("a 200-tool required turn through the library is a valid call, its grammar time counted", async () => {
  const runtime = await createRuntime({ model: "synthetic:tiny", threads: 1, contextSize: 4096 });
  try {
    for (const seed of [1]) {
      // A raw prompt: the 200 tools' schemas are not rendered into it (25,000 tokens of prompt on a shared CPU).
      const out = await runtime.generate({ messages: [], prompt: "<|im_start|>user\nDo it.<|im_end|>\n<|im_start|>assistant\n", tools: generatedTools(200) as never, toolChoice: "required", maxTokens: 128, seed, temperature: 1 });
      expect(out.errors).toEqual([]);
      expect(out.toolCalls.length).toBeGreaterThanOrEqual(1);
      expect(out.timings.grammarMs).toBeGreaterThan(0);
    }
  } finally {
    await runtime.close();
  }
}, 300_000);
