// Owns: the data of grammar distillation (the `synthetic:tiny-distilled` stand-in): the base model's own
// constrained runs on the train half, taken through `qtc data`'s transcript path (kept turns only).

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CallPolicy } from "../harness/call-policy.js";
import { runAgent } from "../harness/loop.js";
import type { OsSandbox } from "../harness/os-sandbox.js";
import { resolveAgentModel } from "../harness/run-task.js";
import type { AgentRun } from "../harness/types.js";
import { DATASET_FILES, makeDataset } from "./export.js";
import type { TaskSplit } from "./split.js";
import { readConversations } from "./trainer-input.js";
import type { Conversation } from "./types.js";

/**
 * How the base's runs are made. Always constrained: the data are the calls the grammar made. Under tool choice
 * `auto` the random base never opens a call (0% in the model-fixes report, grammar or not), so the runs use
 * `required-first`: the grammar forces turn 1's call, and it is valid by construction.
 */
export interface DistillSettings {
  /** Sampling seeds; one run per train task per seed. */
  seeds: readonly number[];
  callPolicy: CallPolicy;
  /** Turns a run takes. */
  maxTurns: number;
  /** Token budget of one turn. */
  maxTokens: number;
}

/** One planned data run: a train-half task and a seed. */
export interface DistillRun {
  task: string;
  taskDir: string;
  seed: number;
}

/** What the data step made, kept in the stand-in's sidecar. */
export interface DistillSummary {
  runs: number;
  /** Runs with at least one call (all of them, under required-first and the grammar). */
  runsWithCalls: number;
  calls: number;
  keptTurns: number;
  droppedTurns: number;
  droppedRuns: number;
  conversations: number;
  samples: number;
  renderedBytes: number;
  seconds: number;
}

/** The runs to make: every train-half task once per seed, tasks in the split's order. Test-half tasks never. */
export function planDistillRuns(split: Pick<TaskSplit, "train">, settings: Pick<DistillSettings, "seeds">): DistillRun[] {
  return settings.seeds.flatMap((seed) => split.train.map((taskDir) => ({ task: path.basename(taskDir), taskDir, seed })));
}

export interface DistillDataOptions {
  /** The model whose constrained outputs become the data: a GGUF path (the training base), or `replay:FILE`. */
  model: string;
  tasksDir: string;
  split: TaskSplit;
  settings: DistillSettings;
  /** CPU threads of the generating model. Default: 2. */
  threads?: number;
  sandbox?: OsSandbox;
  /** Called after each run (progress). Default: none. */
  onRun?: (done: number, planned: number) => void;
}

/**
 * Run the base constrained on the train half, append each run to a transcript, and turn the transcript into
 * training data exactly as `qtc data --transcript FILE --no-demonstrations` does: test-half runs excluded, each
 * run's turns kept while every block was valid and the turn was not cut off, each kept call re-parsed.
 */
export async function distilledData(opts: DistillDataOptions): Promise<{ conversations: Conversation[]; summary: DistillSummary }> {
  const started = Date.now();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-distill-"));
  try {
    const transcript = path.join(work, "runs.jsonl");
    const runs = await makeRuns(opts, transcript);
    const data = await makeDataset({ tasksDir: opts.tasksDir, transcripts: [transcript], noDemonstrations: true, outDir: path.join(work, "data") });
    const conversations = await readConversations(path.join(work, "data", DATASET_FILES.openai));
    const { keptTurns, droppedTurns, droppedRuns } = data.transcripts;
    const summary: DistillSummary = {
      runs: runs.length,
      runsWithCalls: runs.filter((r) => r.turns.some((t) => t.calls.length > 0)).length,
      calls: runs.reduce((n, r) => n + r.turns.reduce((m, t) => m + t.calls.length, 0), 0),
      keptTurns,
      droppedTurns,
      droppedRuns,
      conversations: data.conversations,
      samples: data.samples,
      renderedBytes: data.renderedBytes,
      seconds: (Date.now() - started) / 1000,
    };
    return { conversations, summary };
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** The planned runs, one model loaded for all of them, each appended to `transcript`. */
async function makeRuns(opts: DistillDataOptions, transcript: string): Promise<AgentRun[]> {
  const plan = planDistillRuns(opts.split, opts.settings);
  const model = await resolveAgentModel(opts.model, { threads: opts.threads ?? 2 });
  const out: AgentRun[] = [];
  try {
    for (const run of plan) {
      const { seeds: _seeds, ...s } = opts.settings;
      out.push(await runAgent({ ...s, task: run.taskDir, model, mode: "constrained", seed: run.seed, toolChoice: "auto", transcript, sandbox: opts.sandbox }));
      opts.onRun?.(out.length, plan.length);
    }
  } finally {
    await model.close?.().catch(() => undefined);
  }
  return out;
}
