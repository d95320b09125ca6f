// Owns: how much probability the constraint removed. The turn records, per token sampled under the grammar, the
// mask its sampler applied (RemovedLog); after the turn, one replay of the turn's tokens on its sequence reads the
// model's own next-token distribution at up to MEASURED_STEPS_PER_TURN of those steps, evenly spaced (softmax of its
// logits at the sampling temperature, no bias, no grammar, no top-k/top-p), and sums the mass of the tokens the mask
// banned (measureRemoved).

import type { LlamaContextSequence, Token } from "node-llama-cpp";

/**
 * Steps measured per turn at most. node-llama-cpp 3.21.1 hands over a step's distribution only whole (151,936
 * probabilities in a Map): about 130 ms a step on the loaded 2-core machine, so a turn's steps are sampled evenly.
 */
export const MEASURED_STEPS_PER_TURN = 16;

/**
 * The mask a sampled step ran under: exactly these tokens allowed (the grammar's allowed set), or these lists of
 * tokens banned (free text inside a call, where a sample the grammar still refuses is replaced instead; there the
 * figure is a lower bound).
 */
export type StepMask = { kind: "allowed"; tokens: readonly number[] } | { kind: "banned"; lists: readonly (readonly number[])[] };

/** One sampled step under the grammar: the index of its token in the turn's tokens, and its mask. */
export interface MaskedStep {
  at: number;
  mask: StepMask;
}

/** The masks of a turn's sampled steps under the grammar, in order (what measureRemoved replays). */
export class RemovedLog {
  readonly steps: MaskedStep[] = [];

  /** A token sampled under `mask` is about to become the turn's token number `at`. */
  record(at: number, mask: StepMask | undefined): void {
    if (mask) this.steps.push({ at, mask });
  }
}

/**
 * The probability `mask` removed from `probabilities` (every token's, summing to 1). Greedy decoding (temperature
 * 0) samples the most likely token: the constraint removed all of it (1) when that token is banned, else nothing.
 */
export function removedMass(probabilities: ReadonlyMap<number, number>, mask: StepMask, greedy: boolean): number {
  if (greedy) {
    let top: number | undefined;
    let best = -Infinity;
    for (const [token, p] of probabilities) if (p > best) [top, best] = [token, p];
    return top === undefined ? 0 : Number(!allows(mask, top));
  }
  let sum = 0;
  if (mask.kind === "allowed") {
    for (const t of new Set(mask.tokens)) sum += probabilities.get(t) ?? 0;
    return clamp01(1 - sum);
  }
  // A token in two lists counts once.
  const seen = new Set<number>();
  for (const list of mask.lists) {
    for (const t of list) {
      if (seen.has(t)) continue;
      seen.add(t);
      sum += probabilities.get(t) ?? 0;
    }
  }
  return clamp01(sum);
}

function allows(mask: StepMask, token: number): boolean {
  return mask.kind === "allowed" ? mask.tokens.includes(token) : !mask.lists.some((list) => list.includes(token));
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Up to `most` of `steps`, evenly spaced, first and last included. */
export function evenlySpaced<T>(steps: readonly T[], most = MEASURED_STEPS_PER_TURN): T[] {
  if (steps.length <= most) return [...steps];
  if (most <= 1) return steps.slice(0, Math.max(0, most));
  return Array.from({ length: most }, (_, i) => steps[Math.round((i * (steps.length - 1)) / (most - 1))]!);
}

/**
 * Replay the turn on its sequence and measure its recorded steps (evenlySpaced): the sequence's cache from the
 * prompt's last token on is evaluated again (one batch pass; the turn's timings are already taken), reading the
 * distribution at each measured step. Returns one value per measured step, in order. The sequence then holds the
 * prompt and the turn's tokens up to the last step measured.
 */
export async function measureRemoved(
  sequence: LlamaContextSequence,
  promptTokens: readonly number[],
  tokens: readonly number[],
  steps: readonly MaskedStep[],
  temperature: number,
): Promise<number[]> {
  steps = evenlySpaced(steps);
  if (steps.length === 0 || promptTokens.length === 0) return [];
  const from = promptTokens.length - 1;
  await sequence.eraseContextTokenRanges([{ start: from, end: Math.max(from, sequence.nextTokenIndex) }]);
  const last = steps[steps.length - 1]!.at;
  // Item k is the token before the turn's token k: its logits give the distribution that token was sampled from.
  const items: number[] = [promptTokens[from]!, ...tokens.slice(0, last)];
  const at = new Set(steps.map((s) => s.at));
  const greedy = !(temperature > 0);
  const options = { temperature: greedy ? 0 : temperature, topK: 0, topP: 1, minP: 0 };
  const out = await sequence.controlledEvaluate(
    items.map((token, k) => (at.has(k) ? [token as Token, { generateNext: { probabilities: true, options } }] : (token as Token))),
  );
  return steps.map(({ at, mask }) => {
    const probabilities = out[at]?.next?.probabilities;
    return probabilities ? removedMass(probabilities, mask, greedy) : NaN;
  });
}

/** Mean per token and 90th percentile of per-step figures (NaN left out); null when none is left. */
export function summarizeRemoved(values: readonly number[]): { meanPerToken: number; p90: number; steps: number } | null {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  // Nearest rank: the smallest value with at least 90% of the steps at or below it.
  const p90 = xs[Math.max(0, Math.ceil(0.9 * xs.length) - 1)]!;
  return { meanPerToken: mean, p90, steps: xs.length };
}
