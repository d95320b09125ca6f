// Jump-forward: the matcher finds exactly the text a grammar forces, forced text is fed as the tokenizer's own
// tokens, it is on by default in constrained mode and `jumpForward: false` turns it off.

import type { Llama, LlamaModel, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QWEN3_TOKENS } from "../../src/formats/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createRuntime, type GenerateRequest, type Runtime } from "../../src/index.js";
import { createLlama } from "../../src/model/index.js";
import { EngineVocab } from "../../src/engine/engine-vocab.js";
import { QtcMatcher } from "../../src/engine/qtc-matcher.js";
import { planTokens } from "../../src/engine/jump-forward.js";
import { readVocabulary } from "../../src/model/vocabulary.js";
import { tinyModelPath } from "../helpers/models.js";

let llama: Llama;
let vocab: LlamaModel;
let engine: EngineVocab;
let rt: Runtime;

beforeAll(async () => {
  const path = await tinyModelPath();
  llama = await createLlama({ gpu: "cpu" });
  vocab = await llama.loadModel({ modelPath: path, vocabOnly: true });
  engine = readVocabulary(vocab).engine!;
  rt = await createRuntime({ model: path, threads: 1, contextSize: 1024, sequences: 1 });
});
afterAll(async () => {
  await rt?.close();
  await vocab?.dispose();
  await llama?.dispose();
});

const tokenize = (text: string) => vocab.tokenize(text, false) as number[];

/** The forced continuation of a hand-written grammar after `before`, as the matcher plans it (not accepted). */
function runOf(gbnf: string, before: string[] = []) {
  const specialTokens = [...new Set([...gbnf.matchAll(/<\[(\d+)\]>/g)].map((m) => Number(m[1])))];
  const m = QtcMatcher.create({ gbnf, specialTokens, closeToken: QWEN3_TOKENS.toolCallClose.token, valueClosers: [] }, engine);
  for (const text of before) for (const t of vocab.tokenize(text, true)) expect(m.accept(t)).toBe(true);
  return m.forcedContinuation(1000);
}

describe("the forced continuation", () => {
  test("a literal grammar is forced to its end, special tokens included, text as the tokenizer's own tokens", () => {
    const run = runOf(`root ::= <[${QWEN3_TOKENS.toolCallOpen.token}]> "\\n{\\"a\\": 1}" <[${QWEN3_TOKENS.toolCallClose.token}]>`);
    expect(run).toEqual({ tokens: [QWEN3_TOKENS.toolCallOpen.token, ...tokenize('\n{"a": 1}'), QWEN3_TOKENS.toolCallClose.token], ends: true });
  });

  test("stops where the grammar allows two continuations, and where they share a prefix keeps the prefix", () => {
    expect(runOf(`root ::= "ab" ("cd" | "ce")`)).toEqual({ tokens: tokenize("abc"), ends: false });
    expect(runOf(`root ::= "ab" [a-z]* "!"`)).toEqual({ tokens: tokenize("ab"), ends: false });
    // Once a tool name's prefix is unique, the rest of it is forced.
    expect(runOf(`root ::= ("read_file" | "run_tests") "("`, ["re"])).toEqual({ tokens: tokenize("ad_file("), ends: true });
  });

  test("a grammar that may end or go on is not forced", () => {
    expect(runOf(`root ::= "a" "b"?`, ["a"])).toEqual({ tokens: [], ends: false });
  });

  test("planTokens: the tokenizer's own tokens for each text piece, special tokens as they are", () => {
    const text = '\n{"name": "read_file", "arguments": {"path": "';
    const canonical = tokenize(text);
    expect(planTokens({ pieces: [{ kind: "special", token: 1 }, { kind: "text", text }], ends: false }, tokenize)).toEqual({ tokens: [1, ...canonical], ends: false });
    expect(planTokens({ pieces: [{ kind: "text", text }, { kind: "special", token: 2 }], ends: true }, tokenize)).toEqual({ tokens: [...canonical, 2], ends: true });
  });

  test("the engine's tokenizer remembers a text it tokenized (a closing repeats at every position of a string), and each answer is the caller's own", () => {
    const calls: string[] = [];
    const counting = new EngineVocab(engine.tables, engine.trie, (text) => (calls.push(text), engine.tokenize(text)));
    const closing = '"}}\n';
    const first = counting.tokenize(closing);
    first.push(-1);
    expect(counting.tokenize(closing)).toEqual(engine.tokenize(closing));
    expect(calls).toEqual([closing]);
  });
});

describe("jump-forward in generation", () => {
  const messages = [{ role: "user" as const, content: "Run the tests, please." }];
  const req = (extra: Partial<GenerateRequest>): GenerateRequest => ({ messages, tools: [...HARNESS_TOOLS], maxTokens: 128, seed: 3, ...extra });

  test.each(["hermes", "qwen3coder"] as const)("%s: a call the grammar fixes entirely is fed as the tokenizer's own tokens, none sampled", async (format) => {
    // One call only: whether to make another would be the model's choice, not the grammar's.
    const r = await rt.generate(req({ format, toolChoice: { name: "run_tests" }, parallel: false }));
    expect(r.errors).toEqual([]);
    expect(r.toolCalls.map((c) => c.name)).toEqual(["run_tests"]);
    expect(r.usage.forcedTokens).toBe(r.usage.completionTokens);
    expect(r.tokens).toEqual(vocab.tokenize(r.raw, true));
    expect(vocab.detokenize(r.tokens as Token[], true)).toBe(r.raw);
  });

  test("the envelope before the first argument is forced as the tokenizer's own tokens", async () => {
    const r = await rt.generate(req({ toolChoice: { name: "read_file" } }));
    expect(r.errors).toEqual([]);
    const envelope = [QWEN3_TOKENS.toolCallOpen.token, ...tokenize('\n{"name": "read_file", "arguments": {"path": "')];
    expect(r.tokens.slice(0, envelope.length)).toEqual(envelope);
    expect(r.usage.forcedTokens).toBeGreaterThanOrEqual(envelope.length);
  });

  test("jumpForward: false samples every token of the call and still returns valid calls", async () => {
    for (const format of ["hermes", "qwen3coder"] as const) {
      const on = await rt.generate(req({ format, toolChoice: { name: "run_tests" }, parallel: false }));
      const off = await rt.generate(req({ format, toolChoice: { name: "run_tests" }, parallel: false, jumpForward: false }));
      expect(off.errors).toEqual([]);
      expect(off.usage.forcedTokens).toBe(0);
      expect(off.toolCalls.map((c) => c.name)).toEqual(["run_tests"]);
      // The grammar admits one text only; without jump-forward the model spells it in tokens of its choosing.
      expect(off.toolCalls[0]!.raw).toBe(on.toolCalls[0]!.raw);
      const r = await rt.generate(req({ format, toolChoice: "required", jumpForward: false }));
      expect(r.errors).toEqual([]);
      expect(r.toolCalls.length).toBeGreaterThanOrEqual(1);
    }
  });
});
