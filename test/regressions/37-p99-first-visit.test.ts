// Issue 37 (p99): qtc's engine met the median but not p99 ≤ 2 ms per token; the slow tokens were first visits of a
// parser state. Two of their causes are pinned here by the work they do (counted, never timed: the machine is
// shared): a state's steps were computed one character at a time (inside a string, 95 printable characters cost 95
// advances of the automaton, now one per class interval), and after a string's backslash the mask walk listed
// tokens until its 6,000-node budget ran out before answering "wide" (every token that starts with `n` continues
// the string). Since issue 50 the mask is exact there: the walk runs to the end, over only the prefixes an escape
// can begin (cached per state).

import type { Llama, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createLlama } from "../../src/model/index.js";
import { EngineVocab } from "../../src/engine/engine-vocab.js";
import { QtcMatcher } from "../../src/engine/qtc-matcher.js";
import { compileGbnf } from "../../src/engine/gbnf-program.js";
import { DEAD, StackPool } from "../../src/engine/stack-pool.js";
import { readVocabulary } from "../../src/model/vocabulary.js";
import { normalizeTools } from "../../src/tools/index.js";
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

test("after a string's backslash the mask is exact and walks only the prefixes an escape can begin", () => {
  const g = compileToolGrammar(normalizeTools([...HARNESS_TOOLS]), { format: "hermes", toolChoice: "required", maxTokens: 256, parallel: false });
  if (!g.ok) throw new Error(g.error.message);
  const m = QtcMatcher.create(g.value, engine);
  m.acceptAll(m.forcedContinuation(64).tokens);
  expect(m.acceptAll(engine.tokenize("read_file"))).toEqual(engine.tokenize("read_file"));
  const args = m.forcedContinuation(64);
  expect(model.detokenize(args.tokens as never)).toBe('", "arguments": {"path": "');
  m.acceptAll(args.tokens);
  const backslash = engine.tokenize("\\");
  expect(backslash).toHaveLength(1);
  expect(m.accept(backslash[0]!)).toBe(true);
  // The trie's nodes under the bytes an escape may begin with: all a walk of allowed prefixes may visit (issue 50
  // made the walk run to the end, so the mask is exact here too; before, it gave up and answered "wide").
  const escapes = [...'"\\/bfnrtu'].map((c) => c.charCodeAt(0));
  const { firstChild, childCount, byte } = engine.trie.flat;
  const childrenOf = (node: number) => Array.from({ length: childCount[node]! }, (_, i) => firstChild[node]! + i);
  const under = (node: number): number => 1 + childrenOf(node).reduce((n, child) => n + under(child), 0);
  const bound = 1 + childrenOf(0).filter((c) => escapes.includes(byte[c]!)).reduce((n, child) => n + under(child), 0);
  const visitsBefore = engine.trie.visits;
  const next = m.nextTokens();
  expect(next.kind).toBe("set");
  expect(engine.trie.visits - visitsBefore).toBeGreaterThan(1);
  expect(engine.trie.visits - visitsBefore).toBeLessThanOrEqual(bound);
  const listed = new Set(next.kind === "set" ? next.tokens : []);
  for (let t = 0; t < engine.tables.vocabSize; t++) expect(listed.has(t), `token ${t}`).toBe(m.canBeNext(t));
  expect(listed.has(engine.tokenize("x")[0]!)).toBe(false);
  expect(listed.has(engine.tokenize("n")[0]!)).toBe(true);
});

test("a state's steps cost one advance per class interval, not one per character", () => {
  const pool = new StackPool(compileGbnf('root ::= "\\"" ([^"\\\\] | "\\\\" ["\\\\n])* "\\""\n'));
  const inside = pool.step(pool.root, 0x22);
  const advance = vi.spyOn(StackPool.prototype as never, "advance");
  const next = new Map<number, number>();
  for (let cp = 0x20; cp < 0x7f; cp++) next.set(cp, pool.step(inside, cp));
  expect(advance.mock.calls.length).toBeLessThanOrEqual(6);
  advance.mockRestore();
  // The same answers as before: every ordinary character stays inside, `"` closes, `\` escapes.
  const letters = [...next].filter(([cp]) => cp !== 0x22 && cp !== 0x5c).map(([, s]) => s);
  expect(new Set(letters).size).toBe(1);
  expect(letters[0]).not.toBe(DEAD);
  expect(pool.accepts(next.get(0x22)!)).toBe(true);
  expect(pool.step(next.get(0x5c)!, 0x6e)).toBe(letters[0]);
  expect(pool.step(next.get(0x5c)!, 0x61)).toBe(DEAD);
});
