// Owns: the engine's view of a loaded model's vocabulary (the token tables and byte trie src/model/ reads, with
// plain-text tokenization), read once per model; GrammarChecker, the engine's checker created for a model (what
// tests, `qtc grammar --check` and MaskBench call); and createMatcher, the engine's matcher for a caller's sampler.

import type { LlamaModel, Token } from "node-llama-cpp";
import { EngineChecker, type CheckerVocab } from "../engine/checker.js";
import type { Matcher } from "../engine/matcher.js";
import { createQtcMatcher } from "../engine/qtc-matcher.js";
import type { CompiledGrammar, CompiledSchema } from "../grammar/types.js";
import { QtcException } from "../errors.js";
import { TokenBytes } from "./token-bytes.js";
import { readVocabulary } from "./vocabulary.js";

/**
 * Per model, built on first use (about a second for Qwen3's 151,936 tokens): a test file checks hundreds of grammars
 * against one model. Weakly held: a disposed model's tables go with it.
 */
const read = new WeakMap<LlamaModel, CheckerVocab>();

/** The checker's view of `model`'s vocabulary (cached per model). */
export function modelVocab(model: LlamaModel): CheckerVocab {
  let vocab = read.get(model);
  if (!vocab) {
    vocab = readModelVocab(model);
    read.set(model, vocab);
  }
  return vocab;
}

function readModelVocab(model: LlamaModel): CheckerVocab {
  const { tables, engine } = readVocabulary(model);
  if (!engine) throw new QtcException({ code: "unsupported_model", message: "this model's vocabulary is not byte-level BPE: qtc's constraint engine (and its checker) needs one; use a Qwen3 GGUF" });
  const bytes = new TokenBytes(model);
  const added = new Set(tables.addedTokens.map((a) => a.token));
  return {
    engine,
    tokenizeSpecial: (text) => model.tokenize(text, true),
    detokenize: (tokens) => model.detokenize(tokens as Token[], true),
    bytesOf: (token) => bytes.of(token),
    isAdded: (token) => added.has(token),
  };
}

/** A grammar compiled by qtc's engine with a loaded model's vocabulary, ready to check many inputs. */
export class GrammarChecker extends EngineChecker {
  /**
   * Compile `grammar` with qtc's engine. Throws a QtcException `schema_too_large` where the engine refuses the
   * grammar (GBNF it cannot read, or over its limits), as the runtime refuses it before a turn starts.
   */
  static async create(model: LlamaModel, grammar: string | CompiledGrammar | CompiledSchema): Promise<GrammarChecker> {
    return EngineChecker.forVocabulary(modelVocab(model), grammar);
  }
}

/**
 * qtc's constraint engine at the start of a compiled grammar, over a loaded model's vocabulary: for a caller who
 * samples with their own loop (ask `nextTokens()` or `canBeNext(t)` for the mask, `accept(t)` what was drawn).
 * Throws a QtcException `schema_too_large` where the engine will not hold the grammar.
 */
export function createMatcher(model: LlamaModel, grammar: CompiledGrammar): Matcher {
  return createQtcMatcher(grammar, modelVocab(model).engine);
}
