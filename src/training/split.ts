// Owns: the fixed train/test split of the bench tasks: sorted ids, alternating (even positions train, odd test).

import path from "node:path";
import { listTaskDirs } from "../harness/tasks-check.js";

/** Which half a task is in. */
export type TaskHalf = "train" | "test";

export interface TaskSplit {
  /** Task folders (absolute) used to make training data. */
  train: string[];
  /** Task folders (absolute) held out for measurement. */
  test: string[];
}

/**
 * The split rule, written down once: task ids sorted by code unit, the 1st, 3rd, 5th … go to train, the
 * 2nd, 4th, … to test. It depends only on the ids, so it is the same on every machine and for every run.
 */
export function splitTaskIds(ids: readonly string[]): { train: string[]; test: string[] } {
  const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    train: sorted.filter((_, i) => i % 2 === 0),
    test: sorted.filter((_, i) => i % 2 === 1),
  };
}

/** The half of one task id, given every id of the set. */
export function halfOf(id: string, ids: readonly string[]): TaskHalf {
  return splitTaskIds(ids).train.includes(id) ? "train" : "test";
}

/** Split the task folders under `tasksDir` (e.g. bench/tasks). */
export async function splitTasks(tasksDir: string): Promise<TaskSplit> {
  const dirs = await listTaskDirs(tasksDir);
  const byId = new Map(dirs.map((d) => [path.basename(d), d]));
  const { train, test } = splitTaskIds([...byId.keys()]);
  return { train: train.map((id) => byId.get(id)!), test: test.map((id) => byId.get(id)!) };
}
