// Owns: the defaults several stages share (a turn's token budget and call bound, the sampling settings), in one
// object that the grammar, runtime, harness and bench defaults read, so they cannot drift apart.

import { availableParallelism, loadavg } from "node:os";

export const SHARED_DEFAULTS = Object.freeze({
  /** Token budget of one turn (thinking, text and calls, sampled and forced). Default: 512. */
  maxTokens: 512,
  /** Most calls one turn may make (the grammar's bound as well). Default: 8. */
  maxCalls: 8,
  /** Sampling temperature (the runtime's, and the bench's reference row, so both sample alike). Default: 0.7. */
  temperature: 0.7,
  /** Default: 0.8. */
  topP: 0.8,
  /** Default: 20. */
  topK: 20,
});

/**
 * The tool choice when the user names none, the one rule for every command (bench, run, agent, serve):
 * `required` when every model is synthetic, else `auto`. Random weights practically never open a call under
 * `auto` (the README's `qtc run --model synthetic:tiny` wrote 512 tokens of noise and no call), so nothing would
 * be judged; under `required` every turn calls, and the grammar's guarantee is what the output shows. Replays
 * (`source: "replay"`) replay recorded text and do not count.
 */
export function defaultToolChoiceFor(models: readonly { synthetic: boolean; source?: string }[]): "auto" | "required" {
  const ggufs = models.filter((m) => m.source !== "replay");
  return ggufs.length > 0 && ggufs.every((m) => m.synthetic) ? "required" : "auto";
}

/** Most threads the default picks: decode of small models stops gaining after about 4. */
export const MAX_DEFAULT_THREADS = 4;

/**
 * The default CPU thread count: the cores not already busy (the available parallelism less the 1-minute load
 * average, rounded), at least 1 and at most MAX_DEFAULT_THREADS. llama.cpp's threads spin while they wait for a
 * core, so more threads than free cores is ruinous: on a 2-core machine at load 14, synthetic:tiny decoded at
 * 461 tok/s with 1 thread and 2.3 tok/s with 2 (medians of 6 alternating rounds, measured side by side for issue
 * 18). On an idle machine every core is free and all of them are used. `--threads` / `threads` override it.
 */
export function defaultThreads(cores: number = availableParallelism(), load1: number = loadavg()[0] ?? 0): number {
  const free = Math.round(cores - Math.max(0, load1));
  return Math.max(1, Math.min(MAX_DEFAULT_THREADS, cores, free));
}
