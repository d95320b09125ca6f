// Owns: what a bench runs: choosing tasks from `--tasks`, the modes from the mode flags, the row labels of the
// models, and the ordered list of runs (models × tasks × seeds × modes) with their stable keys.

import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fail } from "../errors.js";
import { defaultToolChoiceFor } from "../defaults.js";
import { isReplaySpec } from "../harness/replay-model.js";
import { listTaskDirs } from "../harness/tasks-check.js";
import { TASK_FILE } from "../harness/workspace.js";
import type { RowSlot } from "./metrics.js";
import type { BenchMode, BenchModelInfo, BenchPlanConfig, PlannedRun } from "./types.js";

/** A chosen set of tasks: the folder they come from and their ids in run order. */
export interface TaskSelection {
  dir: string;
  /** Task folders (absolute), in run order. */
  dirs: string[];
  ids: string[];
}

/**
 * Resolve `--tasks`: a whole number N (the first N tasks of `root`, by name), a folder (every task under it,
 * or the one task it is), or a comma-separated list of task ids under `root`. Undefined means every task under
 * `root`. Throws QtcException `invalid_option` (exit 2) for an unknown id, a bad N or an empty folder.
 */
export async function selectTasks(value: string | undefined, root: string): Promise<TaskSelection> {
  const v = value?.trim();
  if (v && existsSync(v) && statSync(v).isDirectory()) {
    const dir = path.resolve(v);
    if (existsSync(path.join(dir, TASK_FILE))) return { dir: path.dirname(dir), dirs: [dir], ids: [path.basename(dir)] };
    const dirs = await listTaskDirs(dir);
    if (dirs.length === 0) fail("invalid_option", `--tasks ${v}: no task folders (with ${TASK_FILE}) in ${dir}`);
    return { dir, dirs, ids: dirs.map((d) => path.basename(d)) };
  }
  const all = existsSync(root) ? await listTaskDirs(root) : [];
  if (all.length === 0) fail("invalid_option", `no bench tasks in ${root}`);
  if (!v) return { dir: root, dirs: all, ids: all.map((d) => path.basename(d)) };
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (n < 1 || n > all.length) fail("invalid_option", `--tasks ${v}: expected 1 to ${all.length} (the tasks in ${root})`);
    const dirs = all.slice(0, n);
    return { dir: root, dirs, ids: dirs.map((d) => path.basename(d)) };
  }
  const ids = v.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const byId = new Map(all.map((d) => [path.basename(d), d]));
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length > 0 || ids.length === 0) {
    fail("invalid_option", `--tasks: unknown task ${unknown.join(", ") || "(none given)"}; give N, a folder, or ids from ${root}`);
  }
  const unique = [...new Set(ids)];
  return { dir: root, dirs: unique.map((id) => byId.get(id)!), ids: unique };
}

/** The mode flags of `qtc bench`. */
export interface ModeFlags {
  /** `--constrained`: add the constrained row. */
  constrained?: boolean;
  /** `--no-baseline` sets this false: skip the unconstrained row. Default: true. */
  baseline?: boolean;
  /** `--mode M`: run that mode alone. */
  mode?: "constrained" | "unconstrained";
  /** `--reference node-llama-cpp`: add the reference row. */
  reference?: boolean;
}

/**
 * The modes a bench runs, in row order. Plain `qtc bench` runs the unconstrained baseline; `--constrained`
 * adds the constrained row beside it (`--no-baseline` drops the baseline); `--mode M` runs M alone;
 * `--reference` adds the reference row. Contradictions throw `invalid_option` (exit 2).
 */
export function selectModes(f: ModeFlags): BenchMode[] {
  const baseline = f.baseline !== false;
  if (f.mode !== undefined && f.constrained) fail("invalid_option", "--mode and --constrained contradict each other: use one");
  if (f.mode !== undefined && !baseline) fail("invalid_option", "--mode runs one mode alone; --no-baseline is not needed with it");
  let modes: BenchMode[];
  if (f.mode !== undefined) modes = [f.mode];
  else if (f.constrained) modes = baseline ? ["unconstrained", "constrained"] : ["constrained"];
  else if (!baseline) {
    if (!f.reference) fail("invalid_option", "--no-baseline leaves nothing to run: add --constrained or --reference");
    modes = [];
  } else modes = ["unconstrained"];
  return f.reference ? [...modes, "reference"] : modes;
}

/**
 * The tool choice when `--tool-choice` is not given: `auto`, except when every model is synthetic (replays
 * do not count): random weights practically never open a call on their own, so under `auto` a bench of them
 * would have no block to judge; `required` makes every turn call, and the rows then test the guarantee
 * (constrained) against the same requests without the grammar.
 */
export function defaultToolChoice(models: readonly { synthetic: boolean; source: string }[]): "auto" | "required" {
  return defaultToolChoiceFor(models);
}

/** Seeds 0 … n-1. */
export const seedList = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** True when a model can have a reference row (a GGUF; not a replay). */
export const supportsReference = (spec: string): boolean => !isReplaySpec(spec);

/** The model × mode rows of a bench, in order (a replay gets no reference row). */
export function rowSlots(plan: Pick<BenchPlanConfig, "models" | "modes">): RowSlot[] {
  const slots: RowSlot[] = [];
  plan.models.forEach((m, modelIndex) => {
    for (const mode of plan.modes) if (mode !== "reference" || supportsReference(m.spec)) slots.push({ modelIndex, mode });
  });
  return slots;
}

export const runKey = (modelIndex: number, mode: BenchMode, task: string, seed: number): string => `${modelIndex}|${mode}|${task}|${seed}`;

/**
 * Every run of a bench in order: model by model (so one model is loaded at a time), then task, seed and
 * mode innermost, so the modes of one task and seed run back to back under the same conditions.
 */
export function planRuns(plan: BenchPlanConfig): PlannedRun[] {
  const slots = rowSlots(plan);
  const runs: PlannedRun[] = [];
  plan.models.forEach((_, modelIndex) => {
    const modes = slots.filter((s) => s.modelIndex === modelIndex).map((s) => s.mode);
    for (const task of plan.tasks)
      for (const seed of plan.seeds)
        for (const mode of modes) runs.push({ key: runKey(modelIndex, mode, task, seed), modelIndex, mode, task, seed });
  });
  return runs;
}

/**
 * Unique row labels: the model's name, `+lora:<file>` for an adapter; when two entries from different specs
 * share a name, the later ones add `@<file name>` of their spec; identical entries add `#2`, `#3`, ….
 */
export function labelModels(models: readonly { name: string; spec?: string; lora: string | null }[]): string[] {
  const firstSpec = new Map<string, string | undefined>();
  const base = models.map((m) => {
    let label = m.name;
    if (!firstSpec.has(label)) firstSpec.set(label, m.spec);
    else if (m.spec !== undefined && m.spec !== firstSpec.get(label)) label = `${label}@${path.basename(m.spec).replace(/\.gguf$/i, "")}`;
    return m.lora ? `${label}+lora:${path.basename(m.lora)}` : label;
  });
  const seen = new Map<string, number>();
  return base.map((label) => {
    const n = (seen.get(label) ?? 0) + 1;
    seen.set(label, n);
    return n === 1 ? label : `${label}#${n}`;
  });
}

/** Fill in labels for resolved models. */
export function withLabels(models: Omit<BenchModelInfo, "label">[]): BenchModelInfo[] {
  const labels = labelModels(models);
  return models.map((m, i) => ({ ...m, label: labels[i]! }));
}
