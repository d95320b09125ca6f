// runBench end to end with replayed models: the report.json schema (every field, its type), the rows it
// computes, the four files, the synthetic labels, and stopping and resuming.

import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBench, type BenchOptions } from "../../src/bench/run-bench.js";
import { readRecords } from "../../src/bench/store.js";
import type { BenchReport } from "../../src/bench/types.js";
import { QtcException } from "../../src/errors.js";
import { ADD_FIX, BAD_JSON_BLOCK, call, fakeOpener, makeTasks, makeTmp, type FakeScript } from "./helpers.js";

let root: string;
let tasks: string;

// Model "synthetic-a": unconstrained writes one bad block then gives up; constrained fixes add-task.
const A_UNC: FakeScript = { outputs: [BAD_JSON_BLOCK, "giving up"], meters: [{ completion: 20, forced: 0, tps: 10 }] };
const A_CON: FakeScript = {
  outputs: [call("write_file", { path: "src/add.js", content: ADD_FIX }), "done"],
  meters: [{ completion: 20, forced: 5, tps: 8 }],
};
// Model "b" (not synthetic): never calls.
const B_ANY: FakeScript = { outputs: ["no calls"], meters: [{ completion: 4, forced: 0, tps: 4 }] };
const SCRIPTS = { "fake:synthetic-a": { unconstrained: A_UNC, constrained: A_CON }, "fake:b": { unconstrained: B_ANY, constrained: B_ANY } };

const base = (out: string, extra: Partial<BenchOptions> = {}): BenchOptions => ({
  models: [
    { spec: "fake:synthetic-a", lora: null },
    { spec: "fake:b", lora: null },
  ],
  modes: ["unconstrained", "constrained"],
  tasksRoot: tasks,
  seeds: 1,
  maxTurns: 3,
  maxTokens: 64,
  threads: 1,
  out,
  tmpRoot: root,
  ...extra,
});

beforeAll(async () => {
  root = await makeTmp();
  tasks = await makeTasks(path.join(root, "tasks"));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const ROW_TYPES: Record<string, string[]> = {
  model: ["string"],
  synthetic: ["boolean"],
  mode: ["string"],
  lora: ["string", "null"],
  runs: ["number"],
  runsWithCalls: ["number"],
  callRate: ["number", "null"],
  blocks: ["number"],
  validBlocks: ["number"],
  validityRate: ["number", "null"],
  invalidByReason: ["object"],
  tasksPassed: ["number"],
  taskSuccessRate: ["number", "null"],
  runsErrored: ["number"],
  erroredByReason: ["object"],
  loopsStopped: ["number"],
  probabilityRemoved: ["object", "null"],
  completionTokens: ["number"],
  forcedTokens: ["number", "null"],
  decodeTokensPerSecond: ["number", "null"],
  speedRatioVsUnconstrained: ["number", "null"],
};
const typeOf = (v: unknown): string => (v === null ? "null" : typeof v);

describe("a finished bench", () => {
  let out: string;
  let report: BenchReport;
  let opener: ReturnType<typeof fakeOpener>;

  beforeAll(async () => {
    out = path.join(root, "out-full");
    opener = fakeOpener(SCRIPTS);
    const outcome = await runBench({ ...base(out), openModel: opener.open });
    expect(outcome.interrupted).toBe(false);
    expect(outcome.dir).toBe(out);
    report = JSON.parse(await fs.readFile(path.join(out, "report.json"), "utf8")) as BenchReport;
    expect(report).toEqual(outcome.report);
  });

  it("writes the four files", () => {
    for (const f of ["report.json", "report.md", "chart.svg", "transcripts.jsonl"]) expect(existsSync(path.join(out, f))).toBe(true);
  });

  it("report.json rows have exactly the documented fields, with their types", () => {
    expect(Object.keys(report).sort()).toEqual(["config", "rows"]);
    expect(report.rows).toHaveLength(4);
    for (const row of report.rows) {
      expect(Object.keys(row).sort()).toEqual(Object.keys(ROW_TYPES).sort());
      for (const [k, types] of Object.entries(ROW_TYPES)) expect(types).toContain(typeOf((row as unknown as Record<string, unknown>)[k]));
      expect(["unconstrained", "constrained", "reference"]).toContain(row.mode);
    }
  });

  it("report.json config names the models, synthetic or not, threads, versions and date", () => {
    const c = report.config;
    expect(c.modelInfo.map((m) => [m.label, m.synthetic, m.spec])).toEqual([
      ["synthetic-a", true, "fake:synthetic-a"],
      ["b", false, "fake:b"],
    ]);
    expect(c.synthetic).toBe(true);
    expect(c.threads).toBe(1);
    expect(c.versions.node).toBe(process.version);
    expect(c.versions.qtc).toMatch(/^\d+\.\d+\.\d+/);
    expect(c.versions.nodeLlamaCpp).toMatch(/^\d+\.\d+\.\d+/);
    expect(Number.isNaN(Date.parse(c.date))).toBe(false);
    expect(c).toMatchObject({
      tasks: ["add-task", "mul-task"],
      seeds: [0],
      maxTurns: 3,
      maxTokens: 64,
      toolChoice: "auto",
      thinking: false,
      modes: ["unconstrained", "constrained"],
      reference: null,
      runsPlanned: 8,
      runsDone: 8,
      partial: false,
    });
  });

  it("computes the rows from the runs", () => {
    const [aU, aC, bU, bC] = report.rows;
    expect(aU).toMatchObject({ model: "synthetic-a", mode: "unconstrained", runs: 2, runsWithCalls: 2, blocks: 2, validBlocks: 0, validityRate: 0 });
    expect(aU!.invalidByReason).toEqual({ invalid_json: 2 });
    expect(aU).toMatchObject({ tasksPassed: 0, taskSuccessRate: 0, completionTokens: 80, forcedTokens: 0, decodeTokensPerSecond: 10, speedRatioVsUnconstrained: 1 });
    // add-task is fixed, mul-task is not (the write targets src/add.js, which mul-task's tests do not import)
    expect(aC).toMatchObject({ mode: "constrained", runs: 2, blocks: 2, validBlocks: 2, validityRate: 1, tasksPassed: 1, taskSuccessRate: 0.5 });
    expect(aC).toMatchObject({ completionTokens: 80, forcedTokens: 20, decodeTokensPerSecond: 8, speedRatioVsUnconstrained: 0.8 });
    expect(bU).toMatchObject({ model: "b", synthetic: false, runs: 2, runsWithCalls: 0, callRate: 0, blocks: 0, validityRate: null });
    expect(bC).toMatchObject({ speedRatioVsUnconstrained: 1 });
  });

  it("keeps one transcript line per run, tagged for the bench, and loads each model once", async () => {
    const records = await readRecords(path.join(out, "transcripts.jsonl"));
    expect(records).toHaveLength(8);
    expect(new Set(records.map((r) => r.bench.key)).size).toBe(8);
    expect(records[0]!.bench).toEqual({ key: "0|unconstrained|add-task|0", modelIndex: 0, model: "synthetic-a", mode: "unconstrained" });
    expect(records[0]!.turns[0]!.raw).toBe(BAD_JSON_BLOCK);
    expect(opener.calls).toHaveLength(8);
    expect(opener.closed.filter((s) => s === "fake:synthetic-a").length).toBeGreaterThanOrEqual(1);
  });

  it("report.md has the table, the synthetic warning and the config", async () => {
    const md = await fs.readFile(path.join(out, "report.md"), "utf8");
    expect(md).toContain("| model | mode | runs | errored | call rate | validity |");
    expect(md).toContain("| synthetic-a (synthetic) | constrained | 2 | 0 | 100.0% (2/2) | 100.0% (2/2) | none | 50.0% (1/2) |");
    expect(md).toContain("Synthetic weights: validity tests the guarantee, not model quality.");
    expect(md).toContain("![bench chart](chart.svg)");
    expect(md).toContain(`node ${process.version}`);
  });

  it("chart.svg is an SVG whose title says the model is synthetic", async () => {
    const svg = await fs.readFile(path.join(out, "chart.svg"), "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("synthetic weights: validity tests the guarantee, not model quality");
    expect(svg).toContain("decode tok/s");
  });

  it("refuses to write into a folder that already holds a bench", async () => {
    await expect(runBench({ ...base(out), openModel: fakeOpener(SCRIPTS).open })).rejects.toMatchObject({ code: "invalid_option" });
  });
});

describe("a model that cannot serve its modes", () => {
  it("fails before any run (the handle's check), writing no transcript", async () => {
    const out = path.join(root, "out-check");
    const inner = fakeOpener(SCRIPTS);
    const err = await runBench({
      ...base(out),
      openModel: async (spec, settings) => ({
        ...(await inner.open(spec, settings)),
        async check() {
          throw new QtcException({ code: "model_load_failed", message: "cannot apply the adapter" }, 1);
        },
      }),
    }).catch((e: unknown) => e);
    expect((err as QtcException).code).toBe("model_load_failed");
    expect(inner.calls).toHaveLength(0);
    expect(existsSync(path.join(out, "transcripts.jsonl"))).toBe(false);
  });
});

describe("stopping and resuming", () => {
  it("keeps the finished runs and a partial report, then resume runs only the rest", async () => {
    const out = path.join(root, "out-resume");
    const controller = new AbortController();
    const first = fakeOpener(SCRIPTS);
    const stopped = await runBench({
      ...base(out),
      openModel: first.open,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "run" && e.done === 3) controller.abort();
      },
    });
    expect(stopped.interrupted).toBe(true);
    expect(stopped.report.config).toMatchObject({ partial: true, runsDone: 3, runsPlanned: 8 });
    expect(first.calls).toHaveLength(3);
    expect(await readRecords(path.join(out, "transcripts.jsonl"))).toHaveLength(3);
    const md = await fs.readFile(path.join(out, "report.md"), "utf8");
    expect(md).toContain("Interrupted: 3 of 8 runs finished");
    expect(existsSync(path.join(out, "chart.svg"))).toBe(true);

    // A line torn by a hard kill is cut off before resuming.
    await fs.appendFile(path.join(out, "transcripts.jsonl"), '{"kind": "qtc-agent-run", "tur');

    const second = fakeOpener(SCRIPTS);
    const resumed = await runBench({ resume: out, tasksRoot: tasks, tmpRoot: root, openModel: second.open });
    expect(resumed.interrupted).toBe(false);
    expect(second.calls).toHaveLength(5);
    const records = await readRecords(path.join(out, "transcripts.jsonl"));
    expect(records).toHaveLength(8);
    expect(new Set(records.map((r) => r.bench.key)).size).toBe(8);
    expect(resumed.report.config).toMatchObject({ partial: false, runsDone: 8, date: stopped.report.config.date });
    expect(resumed.report.rows.map((r) => r.runs)).toEqual([2, 2, 2, 2]);
  });

  it("requires the same settings: an explicit flag that differs is refused", async () => {
    const out = path.join(root, "out-conflict");
    await runBench({ ...base(out), seeds: 1, openModel: fakeOpener(SCRIPTS).open });
    const err = await runBench({ resume: out, seeds: 2, explicit: new Set(["seeds"]), tasksRoot: tasks, openModel: fakeOpener(SCRIPTS).open }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QtcException);
    expect((err as QtcException).code).toBe("invalid_option");
    // The same value is fine (and nothing is left to run).
    const again = await runBench({ resume: out, seeds: 1, explicit: new Set(["seeds"]), tasksRoot: tasks, openModel: fakeOpener(SCRIPTS).open });
    expect(again.report.config.runsDone).toBe(8);
  });

  it("refuses a folder that is not a bench", async () => {
    const err = await runBench({ resume: path.join(root, "tasks"), openModel: fakeOpener(SCRIPTS).open }).catch((e: unknown) => e);
    expect((err as QtcException).code).toBe("invalid_option");
  });
});
