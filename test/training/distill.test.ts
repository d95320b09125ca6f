// Owns: tests for grammar distillation's data (src/training/distill.ts): the runs it plans are the train half's
// only, and what becomes data is the valid calls of those runs, through `qtc data`'s transcript path.

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveSandbox } from "../../src/harness/os-sandbox.js";
import { distilledData, planDistillRuns } from "../../src/training/distill.js";
import { splitTasks } from "../../src/training/split.js";
import { STAND_IN_RECIPES } from "../../src/training/stand-ins.js";

const TASKS = path.resolve("bench/tasks");

describe("the distilled stand-in's data runs", () => {
  it("are every train-half task once per seed, and no test-half task", async () => {
    const split = await splitTasks(TASKS);
    const settings = STAND_IN_RECIPES["tiny-distilled"].distill;
    const runs = planDistillRuns(split, settings);
    expect(runs).toHaveLength(split.train.length * settings.seeds.length);
    expect(runs.every((r) => split.train.includes(r.taskDir) && path.basename(r.taskDir) === r.task)).toBe(true);
    expect(runs.filter((r) => split.test.includes(r.taskDir))).toEqual([]);
    for (const seed of settings.seeds) expect(runs.filter((r) => r.seed === seed).map((r) => r.taskDir)).toEqual(split.train);
  });
});

describe("the distilled stand-in's data", () => {
  // Four tasks: sorted, active-users and average are the train half, apply-discount and cart-total the test half.
  const IDS = ["active-users", "apply-discount", "average", "cart-total"];
  const VALID = '<tool_call>\n{"name": "run_tests", "arguments": {}}\n</tool_call>';
  const INVALID = '<tool_call>\n{"name": "run_tests", "arguments": {"verbose": true}}\n</tool_call>'; // an argument run_tests does not take
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-distill-test-"));
    for (const id of IDS) await fs.cp(path.join(TASKS, id), path.join(dir, "tasks", id), { recursive: true });
    await fs.writeFile(path.join(dir, "outputs.json"), JSON.stringify([VALID, INVALID]));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it("keeps the runs' valid calls only, as conversations of the train half's tasks", async () => {
    const tasksDir = path.join(dir, "tasks");
    const split = await splitTasks(tasksDir);
    expect(split.train.map((d) => path.basename(d))).toEqual(["active-users", "average"]);
    // A replay plays the two outputs in order: active-users' run gets the valid call, average's the invalid one.
    const settings = { seeds: [0], callPolicy: "required-first" as const, maxTurns: 1, maxTokens: 64 };
    const { conversations, summary } = await distilledData({ model: `replay:${path.join(dir, "outputs.json")}`, tasksDir, split, settings, sandbox: await resolveSandbox("bwrap") });
    expect(summary).toMatchObject({ runs: 2, runsWithCalls: 1, calls: 1, keptTurns: 1, droppedTurns: 1, droppedRuns: 0, conversations: 1, samples: 1 });
    expect(conversations.map((c) => [c.task, c.source])).toEqual([["active-users", "transcript"]]);
    const roles = conversations[0]!.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant"]); // the call's tool result teaches nothing: dropped
    const call = conversations[0]!.messages[2]!;
    expect(call.role === "assistant" && call.tool_calls?.map((t) => [t.function.name, t.function.arguments])).toEqual([["run_tests", "{}"]]);
  }, 120_000);
});
