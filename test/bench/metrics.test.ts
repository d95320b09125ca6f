// The bench's arithmetic on runs replayed through the real agent loop, with known blocks, validity, reasons,
// test outcomes, tokens and speeds.

import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeRows, decodeRate, ratio, rowFromRuns, withSpeedRatios } from "../../src/bench/metrics.js";
import type { BenchModelInfo, BenchRow, BenchRunRecord } from "../../src/bench/types.js";
import { runAgent } from "../../src/harness/loop.js";
import type { AgentRun } from "../../src/harness/types.js";
import { ADD_FIX, BAD_JSON_BLOCK, call, makeTasks, makeTmp, meteredReplay } from "./helpers.js";

let root: string;
let runA: AgentRun; // 3 blocks: 1 valid, invalid_json, unknown_tool; tests fail
let runB: AgentRun; // 1 valid block (the fix); tests pass
let runC: AgentRun; // no block; tests fail

beforeAll(async () => {
  root = await makeTmp();
  const tasks = await makeTasks(path.join(root, "tasks"));
  const task = path.join(tasks, "add-task");
  const tmpRoot = root;
  runA = await runAgent({
    task,
    tmpRoot,
    model: meteredReplay(
      [`${call("read_file", { path: "src/add.js" })}\n${BAD_JSON_BLOCK}`, call("delete_everything", { path: "." }), "I could not fix it."],
      [
        { completion: 10, forced: 2, tps: 20 },
        { completion: 30, forced: 0, tps: 10 },
        { completion: 4, forced: 0, tps: 0 },
      ],
    ),
  });
  runB = await runAgent({
    task,
    tmpRoot,
    model: meteredReplay([call("write_file", { path: "src/add.js", content: ADD_FIX }), "Fixed."], [{ completion: 50, forced: 20, tps: 25 }]),
  });
  runC = await runAgent({ task, tmpRoot, model: meteredReplay(["No idea."], [{ completion: 8, forced: 0, tps: 40 }]) });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the replayed runs are what the tests assume", () => {
  it("counts blocks and outcomes per run", () => {
    expect(runA.counts).toMatchObject({ blocks: 3, valid: 1, invalid: 2, invalidByReason: { invalid_json: 1, unknown_tool: 1 } });
    expect(runA.testsPassed).toBe(false);
    expect(runB.counts).toMatchObject({ blocks: 1, valid: 1, invalid: 0 });
    expect(runB.testsPassed).toBe(true);
    expect(runC.counts.blocks).toBe(0);
    expect(runC.status).toBe("answered");
  });
});

describe("rowFromRuns", () => {
  it("adds up runs, calls, blocks, validity, reasons and task success", () => {
    const row = rowFromRuns({ model: "m", synthetic: true, mode: "unconstrained", lora: null }, [runA, runB, runC]);
    expect(row).toMatchObject({
      model: "m",
      synthetic: true,
      mode: "unconstrained",
      lora: null,
      runs: 3,
      runsWithCalls: 2,
      blocks: 4,
      validBlocks: 2,
      validityRate: 0.5,
      invalidByReason: { invalid_json: 1, unknown_tool: 1 },
      tasksPassed: 1,
      runsErrored: 0,
      speedRatioVsUnconstrained: null,
    });
    expect(row.callRate).toBeCloseTo(2 / 3, 12);
    expect(row.taskSuccessRate).toBeCloseTo(1 / 3, 12);
  });

  it("sums tokens and weighs speed by decode time, skipping turns without a measured speed", () => {
    const row = rowFromRuns({ model: "m", synthetic: false, mode: "constrained", lora: null }, [runA, runB, runC]);
    // tokens: A 10+30+4, B 50 (two turns, the last repeats the meter: 50+50), C 8
    expect(row.completionTokens).toBe(10 + 30 + 4 + 50 + 50 + 8);
    expect(row.forcedTokens).toBe(2 + 20 + 20);
    // decode time: 10/20 + 30/10 + (A's third turn has no speed) + 50/25 + 50/25 + 8/40 seconds
    const seconds = 0.5 + 3 + 2 + 2 + 0.2;
    expect(row.decodeTokensPerSecond).toBeCloseTo((10 + 30 + 50 + 50 + 8) / seconds, 10);
  });

  it("gives null rates when there is nothing to rate, and n/a forced tokens on the reference row", () => {
    const none = rowFromRuns({ model: "m", synthetic: false, mode: "reference", lora: "a.gguf" }, [runC]);
    expect(none.validityRate).toBeNull();
    expect(none.blocks).toBe(0);
    expect(none.forcedTokens).toBeNull();
    expect(none.lora).toBe("a.gguf");
    const empty = rowFromRuns({ model: "m", synthetic: false, mode: "constrained", lora: null }, []);
    expect(empty).toMatchObject({ runs: 0, callRate: null, validityRate: null, taskSuccessRate: null, decodeTokensPerSecond: null, completionTokens: 0 });
  });
});

describe("decodeRate and ratio", () => {
  it("is total tokens over total decode seconds", () => {
    expect(decodeRate([{ tokens: 100, tokensPerSecond: 50 }, { tokens: 300, tokensPerSecond: 100 }])).toBeCloseTo(400 / 5, 12);
  });
  it("ignores turns without tokens or speed, and is null when none is left", () => {
    expect(decodeRate([{ tokens: 0, tokensPerSecond: 10 }, { tokens: 5, tokensPerSecond: 0 }, { tokens: 5, tokensPerSecond: Infinity }])).toBeNull();
    expect(decodeRate([])).toBeNull();
  });
  it("divides, or is null for a zero denominator", () => {
    expect(ratio(1, 4)).toBe(0.25);
    expect(ratio(3, 0)).toBeNull();
  });
});

describe("rows of a report", () => {
  const tag = (r: AgentRun, modelIndex: number, mode: BenchRunRecord["bench"]["mode"], key: string): BenchRunRecord => ({
    ...r,
    bench: { key, modelIndex, model: `m${modelIndex}`, mode },
  });
  const models: BenchModelInfo[] = [
    { spec: "a", lora: null, label: "m0", name: "m0", synthetic: true, source: "synthetic" },
    { spec: "b", lora: "x.gguf", label: "m1", name: "m1", synthetic: false, source: "file" },
  ];

  it("makes one row per slot in order, from the records tagged with it, with speed ratios per model", () => {
    const records = [tag(runA, 0, "unconstrained", "1"), tag(runB, 0, "constrained", "2"), tag(runC, 1, "constrained", "3")];
    const rows = computeRows(
      models,
      [
        { modelIndex: 0, mode: "unconstrained" },
        { modelIndex: 0, mode: "constrained" },
        { modelIndex: 1, mode: "unconstrained" },
        { modelIndex: 1, mode: "constrained" },
      ],
      records,
    );
    expect(rows.map((r) => [r.model, r.mode, r.runs, r.synthetic, r.lora])).toEqual([
      ["m0", "unconstrained", 1, true, null],
      ["m0", "constrained", 1, true, null],
      ["m1", "unconstrained", 0, false, "x.gguf"],
      ["m1", "constrained", 1, false, "x.gguf"],
    ]);
    const aTps = 40 / 3.5; // run A: (10 + 30) tokens over 0.5 + 3 s
    const bTps = 25;
    expect(rows[0]!.decodeTokensPerSecond).toBeCloseTo(aTps, 10);
    expect(rows[0]!.speedRatioVsUnconstrained).toBe(1);
    expect(rows[1]!.speedRatioVsUnconstrained).toBeCloseTo(bTps / aTps, 10);
    // m1 has an unconstrained row with no runs: no ratio.
    expect(rows[3]!.speedRatioVsUnconstrained).toBeNull();
  });

  it("withSpeedRatios leaves rows without an unconstrained row at null", () => {
    const row: BenchRow = rowFromRuns({ model: "z", synthetic: false, mode: "constrained", lora: null }, [runB]);
    expect(withSpeedRatios([row])[0]!.speedRatioVsUnconstrained).toBeNull();
  });

  it("refuses a slot naming a model that does not exist", () => {
    expect(() => computeRows(models, [{ modelIndex: 5, mode: "constrained" }], [])).toThrow(RangeError);
  });
});
