// Owns: reading what the engine's checker needs out of a loaded model (the token tables, the byte trie, the
// engine's vocabulary, each token's exact bytes, tokenization), once per model: the checker's model reading, to
// join src/model/'s vocabulary reader once the engine is fed plain data.

import type { LlamaModel, Token } from "node-llama-cpp";
import { TokenBytes } from "../grammar/token-bytes.js";
import { EngineVocab } from "../runtime/engine/engine-vocab.js";
import { tokenizeAsText } from "../runtime/prompt-tokens.js";
import { computeTokenTables } from "../runtime/token-tables.js";
import { VocabTrie } from "../runtime/vocab-trie.js";

/** A model's vocabulary as the checker reads it. */
export interface ModelVocab {
  /** The engine's view: code points, special tokens, end-of-generation tokens, the trie, compiled grammars. */
  readonly engine: EngineVocab;
  /** The text's tokens with special tokens on (a call tag's spelling is its single special token). */
  tokenizeSpecial(text: string): number[];
  /** The tokens' text, special tokens spelled. */
  detokenize(tokens: readonly number[]): string;
  /** The exact UTF-8 bytes a token stands for. */
  bytesOf(token: number): Uint8Array;
  /** Whether the vocabulary names the token as added (CONTROL or USER_DEFINED, e.g. `<tool_call>`). */
  isAdded(token: number): boolean;
}

/**
 * Per model, built on first use (about a second for Qwen3's 151,936 tokens): a test file checks hundreds of grammars
 * against one model. Weakly held: a disposed model's tables go with it.
 */
const read = new WeakMap<LlamaModel, ModelVocab>();

/** The checker's view of `model`'s vocabulary (cached per model). */
export function modelVocab(model: LlamaModel): ModelVocab {
  let vocab = read.get(model);
  if (!vocab) {
    vocab = readModelVocab(model);
    read.set(model, vocab);
  }
  return vocab;
}

function readModelVocab(model: LlamaModel): ModelVocab {
  const tables = computeTokenTables(model);
  const trie = new VocabTrie(model, tables.vocabSize, tables.partialUtf8Tokens);
  // Forced text is plain text: never an added token (as the runtime tokenizes it).
  const prompt = { tokenize: (text: string, special: boolean) => model.tokenize(text, special), added: tables.addedTokens };
  const engine = new EngineVocab(tables, trie, (text) => tokenizeAsText(text, prompt));
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
