// Owns: the special tokens of the Qwen3.5 / Qwen3.6 vocabulary that qtc relies on. Qwen3.5 has a new, larger
// vocabulary (248,320 rows): the same added tokens in the same order as Qwen3's, but starting at 248,044
// instead of 151,643, so every special id differs from Qwen3's (`<tool_call>` is 248058, not 151657).
// Source: Qwen/Qwen3.5 tokenizer_config.json `added_tokens_decoder` as quoted in public code (`<tool_call>`
// 248058, `</tool_call>` 248059, `<|im_end|>` 248046, `<|endoftext|>` 248044, `<think>` 248068, `</think>`
// 248069); the runtime checks each id against the loaded model's vocabulary before it forces one.

import { QWEN3_TOKENS } from "./qwen3-tokens.js";
import type { SpecialTag } from "./types.js";

/** Qwen3.5's added tokens sit this many ids after Qwen3's (96,401 more BPE tokens come before them). */
const ADDED_SHIFT = 248044 - QWEN3_TOKENS.endOfText.token;

/** Qwen3's special tokens at Qwen3.5's ids: same texts, same order. */
export const QWEN35_TOKENS = Object.freeze(
  Object.fromEntries(Object.entries(QWEN3_TOKENS).map(([key, tag]) => [key, Object.freeze({ text: tag.text, token: tag.token + ADDED_SHIFT })])),
) as { readonly [K in keyof typeof QWEN3_TOKENS]: SpecialTag };

/** Vocabulary size of Qwen3.5 / Qwen3.6 checkpoints (`vocab_size` in their config: 248,320 rows). */
export const QWEN35_VOCAB_SIZE = 248320;

/** Id of the first added token (`<|endoftext|>`); the 26 added tokens follow in Qwen3's order. */
export const QWEN35_ADDED_FIRST = QWEN35_TOKENS.endOfText.token;
