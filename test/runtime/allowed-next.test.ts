// Narrowed sampling: the trie walk finds exactly the tokens a grammar state allows next (checked against asking
// llama.cpp's grammar engine about every token of the vocabulary), and gives up instead of overspending.

import type { Llama, LlamaGrammarEvaluationState, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QWEN3_TOKENS } from "../../src/formats/index.js";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { TOKEN_ATTR, tokenAttributes } from "../../src/model/token-bytes.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createLlama } from "../../src/model/index.js";
import { AllowedNext } from "../../src/runtime/allowed-next.js";
import { acceptForced, canBeNext, GrammarStates } from "../../src/runtime/grammar-state.js";
import { grammarSpecialTokens } from "../../src/engine/jump-forward.js";
import type { TokenTables } from "../../src/engine/token-tables.js";
import { computeTokenTables, readTokenBytes } from "../../src/model/vocabulary.js";
import { VocabTrie } from "../../src/engine/vocab-trie.js";
import { normalizeTools } from "../../src/tools/index.js";
import { tinyModelPath } from "../helpers/models.js";

let llama: Llama;
let vocab: LlamaModel;
let tables: TokenTables;
let grammars: GrammarStates;
let trie: VocabTrie;
/** Tokens the walk may return besides the grammar's special tokens: whole UTF-8, not control or user-defined. */
let ordinary: number[];

beforeAll(async () => {
  llama = await createLlama({ gpu: "cpu" });
  vocab = await llama.loadModel({ modelPath: await tinyModelPath(), vocabOnly: true });
  tables = computeTokenTables(vocab);
  grammars = new GrammarStates(llama, vocab);
  trie = new VocabTrie(readTokenBytes(vocab, tables.vocabSize), tables.partialUtf8Tokens);
  const partial = new Set(tables.partialUtf8Tokens);
  ordinary = [];
  for (let t = 0; t < tables.vocabSize; t++) {
    const special = tokenAttributes(vocab, t) & (TOKEN_ATTR.control | TOKEN_ATTR.userDefined);
    if (!partial.has(t) && !special && vocab.detokenize([t as never], false) !== "") ordinary.push(t);
  }
});
afterAll(async () => {
  await vocab?.dispose();
  await llama?.dispose();
});

/** Every ordinary token and special token the grammar engine allows next, asked one by one. */
function bruteForce(state: LlamaGrammarEvaluationState, specials: readonly number[]): number[] {
  return [...ordinary, ...specials].filter((t) => canBeNext(state, t)).sort((a, b) => a - b);
}

const sorted = (xs: readonly number[] | undefined) => xs && [...xs].sort((a, b) => a - b);

async function stateAfter(gbnf: string, tokens: readonly number[]): Promise<LlamaGrammarEvaluationState> {
  const state = await grammars.stateFor(gbnf);
  for (const t of tokens) expect(acceptForced(state, t)).toBe(true);
  return state;
}

describe("the allowed-token walk", () => {
  test("at a branch between words it returns exactly the grammar's tokens", async () => {
    const gbnf = `root ::= ("yes" | "no" | "maybe" | "mayday") "!"`;
    const state = await stateAfter(gbnf, []);
    const found = sorted(new AllowedNext(trie, tables.byteTokens!).find(state, [tables.eog]));
    expect(found).toEqual(bruteForce(state, [tables.eog]));
    const texts = found!.map((t) => vocab.detokenize([t as never], false));
    expect(texts).toEqual(expect.arrayContaining(["yes", "no", "maybe"]));
    for (const text of texts) expect(["yes", "no", "maybe", "mayday"].some((w) => `${w}!`.startsWith(text))).toBe(true);
  });

  test("along a whole harness call, in both formats, every answer it gives is exact", async () => {
    const tools = normalizeTools([...HARNESS_TOOLS]);
    const calls = {
      hermes: `<tool_call>\n{"name": "grep", "arguments": {"pattern": "TODO", "path": "src"}}\n</tool_call>`,
      qwen3coder: `<tool_call>\n<function=grep>\n<parameter=pattern>\nTODO\n</parameter>\n<parameter=path>\nsrc\n</parameter>\n</function>\n</tool_call>`,
    } as const;
    let exact = 0;
    for (const format of ["hermes", "qwen3coder"] as const) {
      const compiled = compileToolGrammar(tools, { format, toolChoice: "required", maxTokens: 256, parallel: false });
      if (!compiled.ok) throw new Error(compiled.error.message);
      const gbnf = compiled.value.gbnf;
      const specials = [...grammarSpecialTokens(gbnf), tables.eog];
      const tokens = vocab.tokenize(calls[format], true) as number[];
      const walker = new AllowedNext(trie, tables.byteTokens!);
      for (let i = 0; i <= tokens.length; i += 3) {
        const state = await stateAfter(gbnf, tokens.slice(0, i));
        const found = walker.find(state, specials);
        if (found === undefined) continue; // free text: over budget, the turn samples with its text bias there
        expect(sorted(found), `${format} after ${i} tokens`).toEqual(bruteForce(state, specials));
        exact++;
      }
      // The close tag is the only token after the last closing framing.
      const beforeClose = await stateAfter(gbnf, tokens.slice(0, -1));
      expect(walker.find(beforeClose, specials)).toEqual([QWEN3_TOKENS.toolCallClose.token]);
    }
    expect(exact).toBeGreaterThanOrEqual(8);
  });

  test("gives up (undefined) rather than spend more than its budget", async () => {
    const gbnf = `root ::= [a-z]+ "!"`;
    const state = await stateAfter(gbnf, []);
    expect(new AllowedNext(trie, tables.byteTokens!, { probes: 500, clones: 4 }).find(state, [])).toBeUndefined();
    const small = await stateAfter(`root ::= "x" [0-9] "!"`, []);
    expect(new AllowedNext(trie, tables.byteTokens!, { probes: 500, clones: 4 }).find(small, [])).toBeDefined();
  });
});
