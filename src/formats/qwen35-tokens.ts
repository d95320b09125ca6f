// Owns: the special tokens of the Qwen3.5 / Qwen3.6 vocabulary that qtc relies on. Qwen3.5 has a new, larger
// vocabulary (248,320 rows): the same added tokens in the same order as Qwen3's, but starting at 248,044
// instead of 151,643, so every special id differs from Qwen3's (`<tool_call>` is 248058, not 151657).
// Source: Qwen/Qwen3.5 tokenizer_config.json `added_tokens_decoder` as quoted in public code (`<tool_call>`
// 248058, `</tool_call>` 248059, `<|im_end|>` 248046, `<|endoftext|>` 248044, `<think>` 248068, `</think>`
// 248069); the runtime checks each id against the loaded model's vocabulary before it forces one.

import type { SpecialTag } from "./types.js";

export const QWEN35_TOKENS = {
  endOfText: { text: "<|endoftext|>", token: 248044 },
  imStart: { text: "<|im_start|>", token: 248045 },
  /** Ends a turn; the end-of-generation token. */
  imEnd: { text: "<|im_end|>", token: 248046 },
  toolCallOpen: { text: "<tool_call>", token: 248058 },
  toolCallClose: { text: "</tool_call>", token: 248059 },
  toolResponseOpen: { text: "<tool_response>", token: 248066 },
  toolResponseClose: { text: "</tool_response>", token: 248067 },
  thinkOpen: { text: "<think>", token: 248068 },
  thinkClose: { text: "</think>", token: 248069 },
} as const satisfies Record<string, SpecialTag>;

/** Vocabulary size of Qwen3.5 / Qwen3.6 checkpoints (`vocab_size` in their config: 248,320 rows). */
export const QWEN35_VOCAB_SIZE = 248320;

/** Id of the first added token (`<|endoftext|>`); the 26 added tokens follow in Qwen3's order. */
export const QWEN35_ADDED_FIRST = QWEN35_TOKENS.endOfText.token;
