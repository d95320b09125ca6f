// What a bench runs: modes from the flags, tasks from --tasks, row labels and the run order.

import path from "node:path";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultToolChoice, labelModels, planRuns, rowSlots, selectModes, selectTasks } from "../../src/bench/plan.js";
import type { BenchPlanConfig } from "../../src/bench/types.js";
import { QtcException } from "../../src/errors.js";
import { makeTasks, makeTmp } from "./helpers.js";

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof QtcException ? e.code : "not a QtcException";
  }
  return undefined;
};
const asyncCodeOf = async (f: () => Promise<unknown>): Promise<string | undefined> => {
  try {
    await f();
  } catch (e) {
    return e instanceof QtcException ? e.code : "not a QtcException";
  }
  return undefined;
};

describe("selectModes", () => {
  it("runs the baseline alone by default and with --mode unconstrained", () => {
    expect(selectModes({})).toEqual(["unconstrained"]);
    expect(selectModes({ mode: "unconstrained" })).toEqual(["unconstrained"]);
  });
  it("adds the constrained row with --constrained, and drops the baseline with --no-baseline", () => {
    expect(selectModes({ constrained: true })).toEqual(["unconstrained", "constrained"]);
    expect(selectModes({ constrained: true, baseline: false })).toEqual(["constrained"]);
    expect(selectModes({ mode: "constrained" })).toEqual(["constrained"]);
  });
  it("adds the reference row last", () => {
    expect(selectModes({ constrained: true, reference: true })).toEqual(["unconstrained", "constrained", "reference"]);
    expect(selectModes({ reference: true, baseline: false })).toEqual(["reference"]);
  });
  it("refuses contradictions", () => {
    expect(codeOf(() => selectModes({ mode: "unconstrained", constrained: true }))).toBe("invalid_option");
    expect(codeOf(() => selectModes({ mode: "constrained", baseline: false }))).toBe("invalid_option");
    expect(codeOf(() => selectModes({ baseline: false }))).toBe("invalid_option");
  });
});

describe("defaultToolChoice", () => {
  const m = (synthetic: boolean, source = "file") => ({ synthetic, source });
  it("is auto, or required when every GGUF model is synthetic (replays do not count)", () => {
    expect(defaultToolChoice([m(false, "registry")])).toBe("auto");
    expect(defaultToolChoice([m(true, "synthetic"), m(false)])).toBe("auto");
    expect(defaultToolChoice([m(true, "replay")])).toBe("auto");
    expect(defaultToolChoice([m(true, "synthetic"), m(true, "file"), m(true, "replay")])).toBe("required");
  });
});

describe("selectTasks", () => {
  let root: string;
  let tasks: string;
  beforeAll(async () => {
    root = await makeTmp();
    tasks = await makeTasks(path.join(root, "tasks"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("takes every task by default, sorted by name", async () => {
    expect((await selectTasks(undefined, tasks)).ids).toEqual(["add-task", "mul-task"]);
  });
  it("takes the first N", async () => {
    const s = await selectTasks("1", tasks);
    expect(s.ids).toEqual(["add-task"]);
    expect(s.dirs).toEqual([path.join(tasks, "add-task")]);
  });
  it("takes ids in the order given", async () => {
    expect((await selectTasks("mul-task,add-task", tasks)).ids).toEqual(["mul-task", "add-task"]);
  });
  it("takes a folder of tasks, or one task folder", async () => {
    expect((await selectTasks(tasks, "/nonexistent")).ids).toEqual(["add-task", "mul-task"]);
    const one = await selectTasks(path.join(tasks, "mul-task"), "/nonexistent");
    expect(one).toEqual({ dir: tasks, dirs: [path.join(tasks, "mul-task")], ids: ["mul-task"] });
  });
  it("refuses unknown ids, a bad N, and an empty folder", async () => {
    expect(await asyncCodeOf(() => selectTasks("add-task,nope", tasks))).toBe("invalid_option");
    expect(await asyncCodeOf(() => selectTasks("0", tasks))).toBe("invalid_option");
    expect(await asyncCodeOf(() => selectTasks("3", tasks))).toBe("invalid_option");
    expect(await asyncCodeOf(() => selectTasks(root + "/tasks/add-task/src", tasks))).toBe("invalid_option");
  });
});

describe("labels and runs", () => {
  it("labels each --model entry uniquely, naming its adapter or its file", () => {
    expect(
      labelModels([
        { name: "qtc-synthetic-tiny", spec: "synthetic:tiny", lora: null },
        { name: "qtc-synthetic-tiny", spec: "synthetic:tiny", lora: "/x/style.gguf" },
        { name: "qtc-synthetic-tiny", spec: "synthetic:tiny", lora: null },
        { name: "qtc-synthetic-tiny", spec: "/tmp/tiny-seed1.gguf", lora: null },
        { name: "qwen3-0.6b", spec: "qwen3-0.6b", lora: null },
      ]),
    ).toEqual([
      "qtc-synthetic-tiny",
      "qtc-synthetic-tiny+lora:style.gguf",
      "qtc-synthetic-tiny#2",
      "qtc-synthetic-tiny@tiny-seed1",
      "qwen3-0.6b",
    ]);
  });

  const plan: BenchPlanConfig = {
    models: [
      { spec: "synthetic:tiny", lora: null },
      { spec: "replay:x.json", lora: null },
    ],
    modes: ["unconstrained", "constrained", "reference"],
    tasks: ["t1", "t2"],
    tasksDir: "/tasks",
    seeds: [0, 1],
    maxTurns: 8,
    maxTokens: 512,
    toolChoice: "auto",
    thinking: false,
  };

  it("gives a replay no reference row", () => {
    expect(rowSlots(plan)).toEqual([
      { modelIndex: 0, mode: "unconstrained" },
      { modelIndex: 0, mode: "constrained" },
      { modelIndex: 0, mode: "reference" },
      { modelIndex: 1, mode: "unconstrained" },
      { modelIndex: 1, mode: "constrained" },
    ]);
  });

  it("orders runs model, task, seed, then mode, with unique keys", () => {
    const runs = planRuns(plan);
    expect(runs).toHaveLength(2 * 2 * 3 + 2 * 2 * 2);
    expect(runs.slice(0, 4).map((r) => r.key)).toEqual([
      "0|unconstrained|t1|0",
      "0|constrained|t1|0",
      "0|reference|t1|0",
      "0|unconstrained|t1|1",
    ]);
    expect(runs.at(-1)!.key).toBe("1|constrained|t2|1");
    expect(new Set(runs.map((r) => r.key)).size).toBe(runs.length);
  });
});
