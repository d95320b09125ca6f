// Owns: the special tokens of the Qwen3 vocabulary that qtc relies on (ids from the Qwen3 tokenizer).

import type { SpecialTag, ThinkTags } from "./types.js";

export const QWEN3_TOKENS = {
  endOfText: { text: "<|endoftext|>", token: 151643 },
  imStart: { text: "<|im_start|>", token: 151644 },
  /** Ends a turn; the end-of-generation token. */
  imEnd: { text: "<|im_end|>", token: 151645 },
  toolCallOpen: { text: "<tool_call>", token: 151657 },
  toolCallClose: { text: "</tool_call>", token: 151658 },
  toolResponseOpen: { text: "<tool_response>", token: 151665 },
  toolResponseClose: { text: "</tool_response>", token: 151666 },
  thinkOpen: { text: "<think>", token: 151667 },
  thinkClose: { text: "</think>", token: 151668 },
} as const satisfies Record<string, SpecialTag>;

/** Vocabulary size of Qwen3 GGUFs (151,643 BPE tokens + 26 added tokens, padded). */
export const QWEN3_VOCAB_SIZE = 151936;

/** Qwen3's thinking tags: the model opens the block itself (the template's generation prompt does not). */
export const QWEN3_THINK: Readonly<ThinkTags> = Object.freeze({ open: QWEN3_TOKENS.thinkOpen, close: QWEN3_TOKENS.thinkClose, openedByPrompt: false });
