// Owns: prefix reuse: how much of a sequence's KV cache a new prompt keeps (the longest common prefix, or a
// whole number of batches under `deterministic`), erasing the rest, and how well a sequence matches a prompt
// (for routing a request to the sequence that shares the longest prefix with it).

import type { LlamaContextSequence, Token } from "node-llama-cpp";

export interface ReusePolicy {
  /**
   * Keep only whole batches of the common prefix, so the rest of the prompt evaluates in the same batches as
   * from scratch and the same seed gives the same output bit for bit, warm cache or not. Default: false (keep
   * the whole common prefix: a repeated or growing prompt evaluates only its new tokens).
   */
  deterministic: boolean;
  /** The context's batch size (the unit a deterministic cut is a multiple of). */
  batchSize: number;
}

/** What a sequence keeps for a prompt and what it must evaluate. */
export interface ReusePlan {
  /** Leading prompt tokens whose KV cache stays. */
  keep: number;
  /** Prompt tokens to evaluate (the last one always: its logits pick the first answer token). */
  evaluate: number;
}

/**
 * The tokens to keep, given where the sequence first differs from the prompt. The last prompt token is always
 * evaluated again, even when the sequence holds it: its logits are not kept, and the first sample needs them.
 */
export function planReuse(firstDifferentIndex: number, promptLength: number, policy: ReusePolicy): ReusePlan {
  const common = Math.max(0, Math.min(firstDifferentIndex, promptLength - 1));
  const keep = policy.deterministic ? Math.floor(common / policy.batchSize) * policy.batchSize : common;
  return { keep, evaluate: promptLength - keep };
}

/** Tokens of `prompt` the sequence already holds, from the start. */
export function sharedPrefixLength(sequence: Pick<LlamaContextSequence, "compareContextTokens">, prompt: readonly number[]): number {
  return sequence.compareContextTokens(prompt as Token[]).firstDifferentIndex;
}

/**
 * How well a sequence suits a prompt, for routing: the prompt tokens it saves evaluating, less the cached
 * tokens it would erase (another conversation's history). An empty sequence scores 0, so a request that
 * shares only the system prompt and tools with a long conversation takes a free sequence instead of erasing it.
 */
export function prefixAffinity(sequence: Pick<LlamaContextSequence, "compareContextTokens" | "nextTokenIndex">, prompt: readonly number[]): number {
  const shared = Math.min(sharedPrefixLength(sequence, prompt), prompt.length - 1);
  return shared - (sequence.nextTokenIndex - shared);
}

/**
 * Keep the KV cache of the prompt prefix the sequence already holds (see planReuse) and erase the rest.
 * Returns the tokens kept.
 */
export async function reusePrefix(sequence: LlamaContextSequence, prompt: readonly number[], policy: ReusePolicy): Promise<number> {
  const { keep } = planReuse(sharedPrefixLength(sequence, prompt), prompt.length, policy);
  if (keep === 0) await sequence.clearHistory();
  else if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  return keep;
}
