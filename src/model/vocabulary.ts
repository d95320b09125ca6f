// Owns: reading a loaded model's vocabulary out of node-llama-cpp as the engine's plain data, once per model: the
// token tables (the token of each single byte, the tokens that are not valid UTF-8 on their own, the
// end-of-generation ids, the added tokens with their spellings) and each token's bytes for the engine's trie.
// The one place qtc reads a vocabulary from node-llama-cpp.

import type { LlamaModel, Token } from "node-llama-cpp";
import { notWholeText, sortAdded, type AddedToken, type TokenTables } from "../engine/token-tables.js";
import { EngineVocab } from "../engine/engine-vocab.js";
import { VocabTrie, type VocabBytes } from "../engine/vocab-trie.js";
import { QWEN3_TOKENS, QWEN3_VOCAB_SIZE } from "../formats/index.js";
import { byteLevelOrder } from "./byte-level.js";
import { tokenizeAsText } from "./prompt-tokens.js";
import { TOKEN_ATTR, TokenBytes, tokenAttributes } from "./token-bytes.js";

/** What the engine needs of one loaded model's vocabulary. */
export interface ModelVocabulary {
  tables: TokenTables;
  /** The byte trie the engine's masks descend; undefined when the vocabulary is not byte-level. */
  trie: VocabTrie | undefined;
  /** Plain text's tokens, never an added token (forced text: property names come from the client's schema). */
  tokenizeText(text: string): number[];
  /** The engine's view of the vocabulary; undefined when it is not byte-level (the engine cannot walk it). */
  engine: EngineVocab | undefined;
}

/** The engine's vocabulary of a loaded model: its token tables, and its byte trie where it is byte-level. */
export function readVocabulary(model: LlamaModel): ModelVocabulary {
  const tables = computeTokenTables(model);
  // Whole text tokens only: the engine's walks descend it.
  const trie = tables.byteTokens && new VocabTrie(readTokenBytes(model, tables.vocabSize), notWholeText(tables));
  const prompt = { tokenize: (text: string, special: boolean) => model.tokenize(text, special), added: tables.addedTokens };
  const tokenizeText = (text: string) => tokenizeAsText(text, prompt);
  return { tables, trie, tokenizeText, engine: trie && new EngineVocab(tables, trie, tokenizeText) };
}

/** Each token's bytes, and the added tokens (CONTROL, USER_DEFINED) by llama.cpp's attributes. */
export function readTokenBytes(model: LlamaModel, vocabSize: number): VocabBytes {
  const reader = new TokenBytes(model);
  const bytes = new Array<Uint8Array>(vocabSize);
  const special: number[] = [];
  for (let t = 0; t < vocabSize; t++) {
    if (tokenAttributes(model, t) & (TOKEN_ATTR.control | TOKEN_ATTR.userDefined)) special.push(t);
    bytes[t] = reader.of(t);
  }
  return { bytes, special };
}

/** Compute the tables for a loaded model (about 0.3 s for Qwen3's 151,936 tokens). */
export function computeTokenTables(model: LlamaModel): TokenTables {
  const size = vocabSizeOf(model);
  const partial: number[] = [];
  const eogTokens: number[] = [];
  const added: AddedToken[] = [];
  const texts = new Array<string>(size);
  for (let id = 0; id < size; id++) {
    if (model.isEogToken(id as Token)) eogTokens.push(id);
    const attributes = model.getTokenAttributes(id as Token);
    if (attributes.control || attributes.userDefined) added.push({ text: model.detokenize([id as Token], true), token: id });
    const text = model.detokenize([id as Token], false);
    texts[id] = text;
    if (text.includes("\uFFFD")) partial.push(id);
  }
  return {
    vocabSize: size,
    byteTokens: verifyByteTokens(model, byteLevelOrder()),
    partialUtf8Tokens: partial,
    eog: model.tokens.eos ?? QWEN3_TOKENS.imEnd.token,
    eogTokens,
    addedTokens: sortAdded(added),
    texts,
  };
}

/** Rows of the token embedding (the vocabulary size), or Qwen3's when the tensor info is unavailable. */
function vocabSizeOf(model: LlamaModel): number {
  const tensors = model.fileInfo.fullTensorInfo ?? model.fileInfo.tensorInfo ?? [];
  const embedding = tensors.find((t) => t.name === "token_embd.weight");
  const rows = embedding?.dimensions[1];
  return typeof rows === "number" && rows > 0 ? rows : typeof rows === "bigint" ? Number(rows) : QWEN3_VOCAB_SIZE;
}

/** The byte table holds when every ASCII byte's token detokenizes to that byte and the others to U+FFFD. */
function verifyByteTokens(model: LlamaModel, table: number[]): number[] | undefined {
  for (let b = 0; b < 256; b++) {
    const text = model.detokenize([table[b]! as Token], false);
    const expected = b < 0x80 ? String.fromCharCode(b) : "\uFFFD";
    if (text !== expected) return undefined;
  }
  return table;
}
