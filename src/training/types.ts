// Owns: the shapes of training data: a conversation (OpenAI chat fine-tuning line) and a rendered sample.

import type { ChatMessage } from "../prompt/types.js";
import type { HarnessTool } from "../harness/tools.js";

/** Where a conversation came from. */
export type ConversationSource = "demonstration" | "transcript";

/** One line of OpenAI chat fine-tuning JSONL, plus qtc's own fields (ignored by other trainers). */
export interface Conversation {
  messages: ChatMessage[];
  tools: HarnessTool[];
  /** The bench task the conversation works on. */
  task: string;
  source: ConversationSource;
}

/**
 * One assistant turn as the model sees it at inference: the prompt the chat template renders for the history
 * (with the generation prompt), followed by the turn's own output up to and including `<|im_end|>`.
 */
export interface RenderedSample {
  task: string;
  /** Index of the assistant message in its conversation's `messages`. */
  message: number;
  /** The exact bytes of the template's rendering of the history plus this turn (ends with `<|im_end|>\n`). */
  text: string;
  /** The assistant span, as [start, end) offsets into `text` in Unicode code points (Python string indices). */
  assistant: [number, number];
  /** Template markup and caller content, in order; joined they are `text`. `assistant` marks the trained part. */
  pieces: TrainingPiece[];
}

/** A run of text the trainer tokenizes one way: markup with special tokens parsed, content as plain text. */
export interface TrainingPiece {
  text: string;
  special: boolean;
  assistant: boolean;
}
