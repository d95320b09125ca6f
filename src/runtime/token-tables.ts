// Owns: per-model token tables the runtime computes once after loading: the token of each single byte, the
// tokens that are not valid UTF-8 on their own (banned inside constrained calls), the end-of-generation ids, and
// the added tokens (CONTROL and USER_DEFINED) with their spellings, for prompt tokenization.

import type { LlamaModel, Token } from "node-llama-cpp";
import { QWEN3_TOKENS, QWEN3_VOCAB_SIZE } from "../formats/index.js";
import { sortAdded, type AddedToken } from "./prompt-tokens.js";
import { byteLevelOrder } from "../model/byte-level.js";

export interface TokenTables {
  /** Vocabulary size (tokens the model can emit). */
  vocabSize: number;
  /** Token id of each byte 0..255 (byte-level BPE), or undefined when the vocabulary is not byte-level. */
  byteTokens: readonly number[] | undefined;
  /**
   * Tokens whose text alone is not valid UTF-8 (a partial or invalid byte sequence). Inside a constrained call
   * they are banned, so a call never holds invalid UTF-8 and every token adds at least one whole character
   * (which keeps the grammar's token budget sound).
   */
  partialUtf8Tokens: readonly number[];
  /**
   * Tokens that can never continue JSON string content as a whole: a control character, or `"` / `\` inside a
   * longer token (the lone `"` and `\` tokens stay: they close the string or start an escape).
   */
  jsonTextUnsafe: readonly number[];
  /** Tokens that can never continue raw text (qwen3coder values): a control character other than tab, LF, CR. */
  rawTextUnsafe: readonly number[];
  /** The end-of-generation token used to ask a grammar state "may it end here?". */
  eog: number;
  /** Every end-of-generation token (Qwen3 has several): where the grammar may end, each may be sampled. */
  eogTokens: readonly number[];
  /**
   * Tokens the vocabulary adds on top of BPE (CONTROL like `<|im_start|>`, USER_DEFINED like the call tags),
   * longest spelling first: the only tokens a prompt may hold as markers, and only where the template puts them.
   */
  addedTokens: readonly AddedToken[];
  /** Each token's text (without special-token spelling), by id. */
  texts: readonly string[];
}

const JSON_UNSAFE = /[\x00-\x1f"\\]/;
const RAW_UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f]/;

/** Compute the tables for a loaded model (about 0.3 s for Qwen3's 151,936 tokens). */
export function computeTokenTables(model: LlamaModel): TokenTables {
  const size = vocabSizeOf(model);
  const partial: number[] = [];
  const jsonUnsafe: number[] = [];
  const rawUnsafe: number[] = [];
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
    else if (text !== '"' && text !== "\\" && JSON_UNSAFE.test(text)) jsonUnsafe.push(id);
    if (RAW_UNSAFE.test(text)) rawUnsafe.push(id);
  }
  return {
    vocabSize: size,
    byteTokens: verifyByteTokens(model, byteLevelOrder()),
    partialUtf8Tokens: partial,
    jsonTextUnsafe: jsonUnsafe,
    rawTextUnsafe: rawUnsafe,
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
