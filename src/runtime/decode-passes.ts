// Owns: seeing each model pass (one llama_decode) of a context: node-llama-cpp asks its batch prioritization
// strategy once per pass which queued tokens go in, so a strategy that packs and reports is where the bench and
// the tests count passes and the tokens and sequences each one carried.

import type { BatchItem, CustomBatchingPrioritizationStrategy, PrioritizedBatchItem } from "node-llama-cpp";

/** One model pass: how many sequences had tokens in it, and how many tokens in all. */
export interface DecodePass {
  sequences: number;
  tokens: number;
}

/**
 * node-llama-cpp's default packing ("maximumParallelism"): every queued sequence gets an equal share of the
 * batch, and what a short sequence leaves goes to the longer ones in queue order. So sequences decoding one
 * token each all ride the same pass, and a long prompt never starves them.
 */
export function fairShare(items: readonly BatchItem[], size: number): PrioritizedBatchItem[] {
  const share = Math.max(1, Math.floor(size / Math.max(1, items.length)));
  let left = size;
  const out: PrioritizedBatchItem[] = [];
  for (const item of items) {
    if (left <= 0) break;
    const processAmount = Math.min(item.tokens.length, share, left);
    out.push({ item, processAmount });
    left -= processAmount;
  }
  for (const p of out) {
    if (left <= 0) break;
    const more = Math.min(p.item.tokens.length - p.processAmount, left);
    p.processAmount += more;
    left -= more;
  }
  return out;
}

/** The fair-share packing, reporting each pass to `onPass` (node-llama-cpp calls it once per llama_decode). */
export function reportingStrategy(onPass: (pass: DecodePass) => void): CustomBatchingPrioritizationStrategy {
  return ({ items, size }) => {
    const packed = fairShare(items, size);
    const carried = packed.filter((p) => p.processAmount > 0);
    onPass({ sequences: carried.length, tokens: carried.reduce((n, p) => n + p.processAmount, 0) });
    return packed;
  };
}

/** A running tally of passes: what `onDecodePass` feeds, for the bench's tables. */
export class DecodePassTally {
  passes = 0;
  tokens = 0;
  /** Passes that carried 1, 2, … sequences (index = sequences). */
  readonly bySequences: number[] = [];

  add = (pass: DecodePass): void => {
    this.passes++;
    this.tokens += pass.tokens;
    this.bySequences[pass.sequences] = (this.bySequences[pass.sequences] ?? 0) + 1;
  };

  reset(): void {
    this.passes = 0;
    this.tokens = 0;
    this.bySequences.length = 0;
  }

  snapshot(): { passes: number; tokens: number; tokensPerPass: number; bySequences: number[] } {
    const bySequences = Array.from(this.bySequences, (n) => n ?? 0);
    return { passes: this.passes, tokens: this.tokens, tokensPerPass: this.passes > 0 ? this.tokens / this.passes : 0, bySequences };
  }
}
