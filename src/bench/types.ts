// Owns: the bench's data shapes: its configuration, the transcript line it writes per run, and report.json.

import type { CallErrorCode } from "../errors.js";
import type { AgentRun } from "../harness/types.js";
import type { CallPolicy } from "../harness/call-policy.js";

/** The three kinds of row: our runtime without and with the grammar, and node-llama-cpp's own function calling. */
export const BENCH_MODES = ["unconstrained", "constrained", "reference"] as const;
export type BenchMode = (typeof BENCH_MODES)[number];

/** Reference implementations `--reference` accepts. */
export const REFERENCE_KINDS = ["node-llama-cpp"] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/** One `--model` entry, with the LoRA adapter that followed it. */
export interface BenchModelSpec {
  /** The `--model` value as given: a path, `hf:` URI, registry name, `synthetic:*` or `replay:*`. */
  spec: string;
  /** A LoRA adapter GGUF applied on top (`--lora` after this `--model`). Default: null. */
  lora: string | null;
}

/** One model as the report names it. */
export interface BenchModelInfo extends BenchModelSpec {
  /** The row label: unique within a bench (e.g. `qtc-synthetic-tiny`, `qtc-synthetic-tiny+lora:a.gguf`). */
  label: string;
  /** The resolved model's short name, e.g. `qwen3-0.6b` or `qtc-synthetic-tiny`. */
  name: string;
  /** Random weights (or a replay): its validity figures test the guarantee, not model quality. */
  synthetic: boolean;
  /** Where the model came from: file, hf, registry, synthetic or replay. */
  source: string;
}

/** Everything that decides what a bench runs; `--resume` requires the same values. */
export interface BenchPlanConfig {
  models: BenchModelSpec[];
  /** The modes, in row order within each model. */
  modes: BenchMode[];
  /** Task ids, in run order. */
  tasks: string[];
  /** The folder the tasks were read from. */
  tasksDir: string;
  seeds: number[];
  maxTurns: number;
  maxTokens: number;
  toolChoice: "auto" | "required";
  /** The agent loop's call policy (see src/harness/call-policy.ts); absent in reports made before it existed (= "auto"). */
  callPolicy?: CallPolicy;
  thinking: boolean;
}

/** `config` in report.json: the plan plus where and how it ran. */
export interface BenchConfig extends BenchPlanConfig {
  /** The models as resolved (label, name, synthetic), in `--model` order. */
  modelInfo: BenchModelInfo[];
  /** True when any model is synthetic; the outputs then say their validity tests the guarantee, not model quality. */
  synthetic: boolean;
  reference: ReferenceKind | null;
  threads: number;
  contextSize: number;
  gpu: string;
  versions: { qtc: string; nodeLlamaCpp: string; node: string };
  platform: string;
  cpu: string;
  /** When the bench started (ISO 8601). */
  date: string;
  /** Runs the plan holds (models × modes × tasks × seeds). */
  runsPlanned: number;
  /** Runs finished and kept in transcripts.jsonl. */
  runsDone: number;
  /** True when the bench stopped before every planned run finished (Ctrl-C); `--resume DIR` continues it. */
  partial: boolean;
  /** Wall-clock time of this invocation, ms. */
  wallMs: number;
  /** Things a reader should know (a model skipped for the reference row, how the reference row is judged). */
  notes: string[];
}

/** One row of report.json: one model in one mode. Field names are stable (the issue fixes them). */
export interface BenchRow {
  /** The model's label (unique per `--model` entry). */
  model: string;
  synthetic: boolean;
  mode: BenchMode;
  /** The LoRA adapter file, or null. */
  lora: string | null;
  runs: number;
  /** Runs in which the model wrote at least one call block (valid or not). */
  runsWithCalls: number;
  /** runsWithCalls / runs, or null with no runs. */
  callRate: number | null;
  /** Call blocks the parser saw (valid + invalid). */
  blocks: number;
  validBlocks: number;
  /** validBlocks / blocks, or null when no block was written. */
  validityRate: number | null;
  invalidByReason: Partial<Record<CallErrorCode, number>>;
  /** Runs after which the task's tests pass. */
  tasksPassed: number;
  /** tasksPassed / runs, or null with no runs. */
  taskSuccessRate: number | null;
  /** Runs that ended in `error` (a model failure, an abort). */
  runsErrored: number;
  /**
   * The errored runs by reason (errorReason: the run's error, short, e.g. `context full (4096 tokens)`), most
   * frequent first; absent in reports made before it.
   */
  erroredByReason?: Record<string, number>;
  /** Turns whose loop the repetition guard stopped (notice `repetition_stopped`); absent in reports made before it. */
  loopsStopped?: number;
  /**
   * How much probability the constraint removed, over every token sampled under the grammar in the row's turns:
   * per token, the mass of the tokens the mask banned under the model's own distribution at the sampling
   * temperature (src/runtime/probability-removed.ts); its mean per token, 90th percentile and the tokens measured.
   * Null where nothing was measured (unconstrained and reference rows, engines that do not measure it).
   */
  probabilityRemoved: { meanPerToken: number; p90: number; steps: number } | null;
  /** Every token the runs' turns added, sampled and forced. */
  completionTokens: number;
  /** Tokens fed by jump-forward or forced tags; null where the engine does not report it (reference row). */
  forcedTokens: number | null;
  /** completionTokens over the decode time of all turns (see decodeRate), or null when none was measured. */
  decodeTokensPerSecond: number | null;
  /** decodeTokensPerSecond / that of the same model's unconstrained row; null without both. */
  speedRatioVsUnconstrained: number | null;
}

export interface BenchReport {
  config: BenchConfig;
  rows: BenchRow[];
}

/** What the bench adds to each transcript line (an AgentRun record) so that rows and `--resume` can find it. */
export interface BenchRunTag {
  /** `<model index>|<mode>|<task>|<seed>`: unique within a bench. */
  key: string;
  /** Index into config.models. */
  modelIndex: number;
  /** The model's label (row name). */
  model: string;
  mode: BenchMode;
}

/** One line of transcripts.jsonl: the harness's run record plus the bench's tag. */
export type BenchRunRecord = AgentRun & { bench: BenchRunTag };

/** One planned run. */
export interface PlannedRun {
  key: string;
  modelIndex: number;
  mode: BenchMode;
  task: string;
  seed: number;
}
