// Owns: the Qwen3.5 tokenizer as GGUF data: Qwen3.5's layout of special tokens (the 26 added tokens at
// 248,044-248,069, a 248,320-row vocabulary, eos `<|im_end|>` 248046, the `qwen35` pre-tokenizer), its real chat
// template (templates/qwen3.5-4b.jinja), and its BPE: rebuilt from Qwen3.5's own merges when the data folder has
// them (qwen35-data.ts, qwen35-bpe.ts: real ids), else Qwen3's BPE under those special ids (approximate ids).
//
// The approximate form: Qwen3.5's BPE tables are in no npm package (llama.cpp's `models/ggml-vocab-qwen35.gguf`,
// shipped in node-llama-cpp, holds Qwen2's 151,936 tokens with only the pre-tokenizer renamed), so without the
// data the ids between Qwen3's last BPE token and the added tokens are UNUSED placeholders: Qwen3.5's special ids
// and vocabulary size, but Qwen3's merges, whose ids match real Qwen3.5 on almost no normal token.

import { readFile } from "node:fs/promises";
import { QWEN35_ADDED_FIRST, QWEN35_TOKENS, QWEN35_VOCAB_SIZE } from "../formats/qwen35-tokens.js";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";
import { TOKEN_TYPE, readQwen3Vocab, type Qwen3Vocab } from "./qwen3-vocab.js";
import { placeGaps, tokensFromMerges, type GapPlacement, type RealPair } from "./qwen35-bpe.js";
import { qwen35DataDir, readQwen35Merges, readQwen35Pairs } from "./qwen35-data.js";

/** Qwen3.5's chat template as qtc ships it (templates/README.md says where it comes from). */
export const QWEN35_TEMPLATE_FILE = new URL("../../templates/qwen3.5-4b.jinja", import.meta.url);

export async function readQwen35ChatTemplate(): Promise<string> {
  return readFile(QWEN35_TEMPLATE_FILE, "utf8");
}

/** Qwen3.8's chat template as qtc ships it (templates/README.md); its special tokens are Qwen3.5's. */
export const QWEN38_TEMPLATE_FILE = new URL("../../templates/qwen3.8-27b.jinja", import.meta.url);

export async function readQwen38ChatTemplate(): Promise<string> {
  return readFile(QWEN38_TEMPLATE_FILE, "utf8");
}

/**
 * Qwen3.5's added tokens after Qwen3's 26, at 248,070-248,076 (its tokenizer's `added_tokens.json`): audio and
 * speech markers. Only the real-id layout carries them; the approximate one stays as it was (placeholders there).
 */
export const QWEN35_MORE_ADDED = ["<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>", "<tts_text_bos_single>", "<|audio_pad|>"] as const;

/** Where a Qwen3.5 vocabulary's ids come from: Qwen3.5's merges (real) or Qwen3's (approximate). */
export type Qwen35Ids = "real" | "approximate";

/** Qwen3.5's merges, the real pairs in the data folder, and the gaps placed from them. */
export interface Qwen35Bpe {
  merges: string[];
  pairs: RealPair[];
  placement: GapPlacement;
}

/** Read Qwen3.5's BPE from the data folder (default: qwen35DataDir()), or null when it holds no merges. */
export async function readQwen35Bpe(dir: string = qwen35DataDir()): Promise<Qwen35Bpe | null> {
  const merges = await readQwen35Merges(dir);
  if (merges === null) return null;
  const pairs = await readQwen35Pairs(dir);
  return { merges, pairs, placement: placeGaps(merges, pairs, QWEN35_ADDED_FIRST) };
}

/** The Qwen3.5 vocabulary (see the file comment), with `ids` saying which BPE it carries. */
export async function readQwen35Vocab(dir: string = qwen35DataDir()): Promise<Qwen3Vocab & { ids: Qwen35Ids }> {
  const [qwen3, chatTemplate, bpe] = await Promise.all([readQwen3Vocab(), readQwen35ChatTemplate(), readQwen35Bpe(dir)]);
  return qwen35Vocab(qwen3, chatTemplate, bpe && { merges: bpe.merges, gaps: bpe.placement.gaps });
}

/**
 * Qwen3.5's layout over a BPE: `bpe`'s merges by the rank rule with its gaps (real ids), or, when null, Qwen3's
 * BPE tokens at their Qwen3 ids (approximate ids); then Qwen3's added tokens at Qwen3.5's ids.
 */
export function qwen35Vocab(qwen3: Qwen3Vocab, chatTemplate: string, bpe: { merges: string[]; gaps: readonly number[] } | null): Qwen3Vocab & { ids: Qwen35Ids } {
  const firstAdded = QWEN3_TOKENS.endOfText.token;
  const tokens = new Array<string>(QWEN35_VOCAB_SIZE);
  const tokenTypes = new Array<number>(QWEN35_VOCAB_SIZE).fill(TOKEN_TYPE.UNUSED);
  for (let id = 0; id < QWEN35_VOCAB_SIZE; id++) tokens[id] = `[PAD${id}]`;
  if (bpe !== null) {
    const gaps = new Set(bpe.gaps);
    tokensFromMerges(bpe.merges, bpe.gaps, QWEN35_ADDED_FIRST).forEach((text, id) => {
      tokens[id] = text;
      if (!gaps.has(id)) tokenTypes[id] = TOKEN_TYPE.NORMAL;
    });
  }
  qwen3.tokens.forEach((text, id) => {
    const type = qwen3.tokenTypes[id]!;
    if (type === TOKEN_TYPE.UNUSED || (bpe !== null && id < firstAdded)) return;
    const at = id < firstAdded ? id : id + QWEN35_ADDED_FIRST - firstAdded;
    tokens[at] = text;
    tokenTypes[at] = type;
  });
  if (bpe !== null) {
    const after = QWEN35_TOKENS.thinkClose.token + 1;
    QWEN35_MORE_ADDED.forEach((text, i) => {
      tokens[after + i] = text;
      tokenTypes[after + i] = /^<\|.*\|>$/.test(text) ? TOKEN_TYPE.CONTROL : TOKEN_TYPE.USER_DEFINED;
    });
  }
  if (tokens[QWEN35_TOKENS.toolCallOpen.token] !== QWEN35_TOKENS.toolCallOpen.text || tokens[QWEN35_TOKENS.thinkClose.token] !== QWEN35_TOKENS.thinkClose.text) {
    throw new Error("Qwen3.5 vocabulary: the added tokens did not land on Qwen3.5's ids");
  }
  return {
    tokens,
    tokenTypes,
    merges: bpe?.merges ?? qwen3.merges,
    chatTemplate,
    pre: "qwen35",
    eosTokenId: QWEN35_TOKENS.imEnd.token,
    bosTokenId: QWEN35_TOKENS.endOfText.token,
    paddingTokenId: QWEN35_TOKENS.endOfText.token,
    ids: bpe === null ? "approximate" : "real",
  };
}
