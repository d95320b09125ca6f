// Owns: every default of `qtc bench`, in one object the CLI help reads.

import { AGENT_DEFAULTS } from "../harness/defaults.js";
import { LOAD_DEFAULTS } from "../model/load.js";
import { DEFAULT_MODEL } from "../model/registry.js";
import { SHARED_DEFAULTS } from "../defaults.js";

export const BENCH_DEFAULTS = Object.freeze({
  /** Model when no `--model` is given. Default: DEFAULT_MODEL ("qwen3-0.6b", downloaded on first use). */
  model: DEFAULT_MODEL,
  /** Seeds per task (seeds 0 … N-1). Default: 3. */
  seeds: 3,
  /** Turns before a run stops at `turn_limit`. Default: 8 (the harness default). */
  maxTurns: AGENT_DEFAULTS.maxTurns,
  /** Token budget of one turn. Default: 512 (the harness default). */
  maxTokens: AGENT_DEFAULTS.maxTokens,
  /** Default: "auto" (but "required" when every model is `synthetic:*`; see defaultToolChoice in plan.ts). */
  toolChoice: "auto" as "auto" | "required",
  /** Default: false ("off"). */
  thinking: false,
  /** CPU threads. Default: LOAD_DEFAULTS.threads (available parallelism, at most 4). */
  threads: LOAD_DEFAULTS.threads,
  /**
   * Context size of one-turn suites (`--suite bfcl`), tokens. The task bench sizes its context to its plan
   * instead (benchContextSize). Default: LOAD_DEFAULTS.contextSize (4096).
   */
  contextSize: LOAD_DEFAULTS.contextSize,
  /** Tokens the task bench's context keeps for the first prompt (system prompt, the 5 tools, the task). Default: 2048. */
  promptReserve: 2048,
  /** Tokens the task bench's context keeps per turn for the turn's tool results, beside its own budget. Default: 1024. */
  resultReserve: 1024,
  /** Compute backend. Default: "auto". */
  gpu: LOAD_DEFAULTS.gpu,
  /** Task folders live here (relative to the qtc package root). Default: "bench/tasks". */
  tasksDir: "bench/tasks",
  /** Results go into `<resultsDir>/<timestamp>/` (relative to the working directory). Default: "bench/results". */
  resultsDir: "bench/results",
  /** Sampling temperature of the reference row (the runtime's own default, so both sample alike). Default: 0.7. */
  referenceTemperature: SHARED_DEFAULTS.temperature,
  /** Default: 0.8. */
  referenceTopP: SHARED_DEFAULTS.topP,
  /** Default: 20. */
  referenceTopK: SHARED_DEFAULTS.topK,
  /** Width × height of chart.svg in pixels. Default: 960 × 640. */
  chartWidth: 960,
  chartHeight: 640,
});

/** File names inside a bench's output folder. */
export const BENCH_FILES = Object.freeze({
  report: "report.json",
  markdown: "report.md",
  chart: "chart.svg",
  transcripts: "transcripts.jsonl",
});

/** The line every output carries when a model is synthetic. */
export const SYNTHETIC_NOTE = "synthetic weights: validity tests the guarantee, not model quality";

/**
 * The task bench's context size when none is given: room for the first prompt and every turn (its token budget
 * plus its tool results), rounded up to 1024, so a run reaches its turn limit instead of overflowing the
 * context on a late turn. 14336 for the default 8 turns × 512 tokens (the tiny synthetic model and Qwen3 were
 * trained on 40,960; a 0.6B model's KV cache at 14336 tokens is about 1.6 GB).
 */
export function benchContextSize(maxTurns: number, maxTokens: number): number {
  const need = BENCH_DEFAULTS.promptReserve + maxTurns * (maxTokens + BENCH_DEFAULTS.resultReserve);
  return Math.ceil(need / 1024) * 1024;
}
