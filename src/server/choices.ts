// Owns: `n` (several choices for one request, chat and legacy completions): its bounds, each choice's seed, and
// the one body that holds them all.

import { unsupported } from "./api-error.js";
import type { GenerateRequest } from "../runtime/types.js";

/** Most choices one request may ask for. */
export const MAX_CHOICES = 8;

/**
 * The request's `n`: 1 when absent; 1..MAX_CHOICES, and 1 when streamed (a stream carries one choice), else a 400
 * naming `n`.
 */
export function choicesOf(n: unknown, stream: boolean): number {
  if (n === undefined || n === null) return 1;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_CHOICES) {
    throw unsupported("n", `n must be a whole number from 1 to ${MAX_CHOICES}; got ${JSON.stringify(n)}. Send several requests for more choices.`);
  }
  if (n > 1 && stream) throw unsupported("n", "n above 1 is not supported with stream: true (a stream carries one choice); send n: 1, or stream: false.");
  return n;
}

/**
 * The request of choice `i`: each choice is its own generation. With a seed, choice i samples with seed + i (mod
 * 2^32), so the same request gives the same choices and choice 0 is what n: 1 gives; without one, each draws its own.
 */
export function choiceRequest(request: GenerateRequest, i: number): GenerateRequest {
  if (i === 0 || request.seed === undefined) return request;
  return { ...request, seed: (request.seed + i) % 2 ** 32 };
}

type Body = Record<string, unknown> & { choices?: Array<Record<string, unknown>>; usage?: Record<string, number> };

/**
 * One OpenAI body from each choice's own body: choices numbered 0..n-1, usage with the prompt counted once and the
 * completion tokens summed; `qtc` is choice 0's, with each choice's own under `qtc.choices`.
 */
export function mergeChoices(bodies: readonly unknown[]): unknown {
  const all = bodies as Body[];
  const first = all[0]!;
  const choices = all.map((b, index) => ({ ...(b.choices?.[0] ?? {}), index }));
  const merged: Body = { ...first, choices };
  if (first.usage) {
    const completion = all.reduce((sum, b) => sum + (b.usage?.completion_tokens ?? 0), 0);
    const prompt = first.usage.prompt_tokens ?? 0;
    merged.usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }
  if (first.qtc !== undefined) merged.qtc = { ...(first.qtc as object), choices: all.map((b) => b.qtc ?? null) };
  return merged;
}
