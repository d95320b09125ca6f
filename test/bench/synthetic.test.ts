// The bench on a real (synthetic) model, kept small for a 2-core CI: one task, one seed, two short turns.
// The constrained row's every block is valid; the reference row (node-llama-cpp's own function calling) runs
// on the same task and is judged by the same parser; a LoRA adapter changes what the model writes.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBench } from "../../src/bench/run-bench.js";
import { readRecords } from "../../src/bench/store.js";
import { modelsDir } from "../../src/model/paths.js";
import { tinyModelPath } from "../helpers/models.js";
import { makeTasks, makeTmp } from "./helpers.js";
import { tinyLoraPath } from "./synthetic-lora.js";

let root: string;
let tasks: string;

beforeAll(async () => {
  root = await makeTmp();
  tasks = await makeTasks(path.join(root, "tasks"));
  await tinyModelPath();
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const small = { tasks: "add-task", seeds: 1, maxTurns: 2, maxTokens: 48, threads: 1, contextSize: 2048 } as const;

describe("synthetic:tiny", () => {
  it("constrained validity is 1.0 over the blocks it wrote; baseline and reference rows are judged by the same parser", async () => {
    const out = path.join(root, "tiny");
    const { report } = await runBench({
      ...small,
      tasksRoot: tasks,
      tmpRoot: root,
      out,
      models: [{ spec: "synthetic:tiny", lora: null }],
      modes: ["unconstrained", "constrained", "reference"],
    });
    // Every model is synthetic, so the tool choice defaults to required.
    expect(report.config.toolChoice).toBe("required");
    expect(report.config.synthetic).toBe(true);
    const [unc, con, ref] = report.rows;
    expect(report.rows.map((r) => [r.model, r.mode, r.runs, r.synthetic])).toEqual([
      ["qtc-synthetic-tiny", "unconstrained", 1, true],
      ["qtc-synthetic-tiny", "constrained", 1, true],
      ["qtc-synthetic-tiny", "reference", 1, true],
    ]);
    expect(con!.blocks).toBeGreaterThan(0);
    expect(con!.validityRate).toBe(1);
    expect(con!.invalidByReason).toEqual({});
    expect(con!.runsErrored).toBe(0);
    expect(con!.decodeTokensPerSecond).toBeGreaterThan(0);
    expect(unc!.completionTokens).toBeGreaterThan(0);
    expect(ref!.completionTokens).toBeGreaterThan(0);
    expect(ref!.forcedTokens).toBeNull();
    // The reference row's calls went through our parser: its blocks are counted, valid or not.
    const records = await readRecords(path.join(out, "transcripts.jsonl"));
    const refRun = records.find((r) => r.bench.mode === "reference")!;
    expect(refRun.counts.blocks).toBe(ref!.blocks);
    const turnBlocks = refRun.turns.reduce((n, t) => n + t.calls.length + t.errors.length, 0);
    expect(turnBlocks).toBe(ref!.blocks);
    // Under required, node-llama-cpp's forced call opens every answer with a block.
    expect(ref!.blocks).toBeGreaterThan(0);
  });

  it("a LoRA adapter gives its own row and changes what the model writes", async () => {
    const lora = await tinyLoraPath(path.join(modelsDir(), "test-lora"));
    const out = path.join(root, "lora");
    const { report } = await runBench({
      ...small,
      tasksRoot: tasks,
      tmpRoot: root,
      out,
      toolChoice: "auto",
      maxTurns: 1,
      models: [
        { spec: "synthetic:tiny", lora: null },
        { spec: "synthetic:tiny", lora },
        { spec: "synthetic:tiny", lora: null },
      ],
      modes: ["reference"],
    });
    expect(report.rows.map((r) => [r.model, r.mode, r.lora, r.runs])).toEqual([
      ["qtc-synthetic-tiny", "reference", null, 1],
      [`qtc-synthetic-tiny+lora:${path.basename(lora)}`, "reference", lora, 1],
      ["qtc-synthetic-tiny#2", "reference", null, 1],
    ]);
    const raw = (await readRecords(path.join(out, "transcripts.jsonl"))).map((r) => r.turns[0]!.raw);
    expect(raw).toHaveLength(3);
    // Same model, same seed: the same text (sampling is seeded), so the difference below is the adapter's.
    expect(raw[2]).toBe(raw[0]);
    expect(raw[1]).not.toBe(raw[0]);
  });
});
