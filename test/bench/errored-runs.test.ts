// Errored runs are shown, never hidden: each row's errored runs and their reasons in the terminal table and
// report.md, a one-line error and a non-zero exit when a mode's runs all errored, and a default context that
// holds every turn of the default plan.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BENCH_DEFAULTS, benchContextSize } from "../../src/bench/defaults.js";
import { errorReason } from "../../src/bench/metrics.js";
import type { BenchLoadSettings, BenchModelOpener } from "../../src/bench/models.js";
import { allErroredLines, renderMarkdown, renderTable } from "../../src/bench/render-text.js";
import { runBench } from "../../src/bench/run-bench.js";
import { main } from "../../src/cli/cli.js";
import { createReplayModel } from "../../src/harness/replay-model.js";
import { tinyModelPath } from "../helpers/models.js";
import { makeTasks, makeTmp } from "./helpers.js";

let root: string;
let tasks: string;

beforeAll(async () => {
  root = await makeTmp();
  tasks = await makeTasks(path.join(root, "tasks"));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const OVERFLOW = "the prompt (3900 tokens) plus maxTokens (512) exceeds the context size (4096)";

/** An opener whose constrained runs fail on their first turn as an overflowing context does; unconstrained runs answer. */
function failingOpener(seen: BenchLoadSettings[]): BenchModelOpener {
  return async (spec, settings) => {
    seen.push(settings);
    return {
      info: { ...spec, name: "fake", synthetic: true, source: "file" },
      async forRun(mode, label) {
        if (mode === "unconstrained") return createReplayModel(["no calls"], { name: label });
        return {
          name: label,
          synthetic: true,
          async generate() {
            throw new Error(OVERFLOW);
          },
        };
      },
      async close() {},
    };
  };
}

describe("errored runs in the report", () => {
  it("counts them per row with their reasons, in both tables, and names a mode whose runs all errored", async () => {
    const seen: BenchLoadSettings[] = [];
    const { report } = await runBench({
      models: [{ spec: "fake:x", lora: null }],
      modes: ["unconstrained", "constrained"],
      tasksRoot: tasks,
      seeds: 1,
      maxTurns: 2,
      maxTokens: 32,
      threads: 1,
      out: path.join(root, "errored"),
      tmpRoot: root,
      sandbox: "off",
      openModel: failingOpener(seen),
    });
    const [unc, con] = report.rows;
    expect([unc!.runs, unc!.runsErrored, unc!.erroredByReason]).toEqual([2, 0, {}]);
    expect([con!.runs, con!.runsErrored, con!.erroredByReason]).toEqual([2, 2, { "context full (4096 tokens)": 2 }]);

    const table = renderTable(report, { width: Infinity });
    expect(table).toContain("errored");
    expect(table).toContain("2 (context full (4096 tokens) 2)");
    expect(allErroredLines(report)).toEqual([
      "every run of fake (synthetic) · constrained errored: 2 (context full (4096 tokens) 2); its figures measure nothing (see transcripts.jsonl)",
    ]);
    expect(table).toContain("error: every run of fake (synthetic) · constrained errored");

    const md = renderMarkdown(report, { chart: "chart.svg", transcripts: "transcripts.jsonl" });
    const header = md.split("\n").find((l) => l.startsWith("| model"))!;
    expect(header.split("|").map((c) => c.trim())).toContain("errored");
    expect(md).toMatch(/\| constrained \| 2 \| 2 \(context full \(4096 tokens\) 2\) \|/);
    expect(md).toContain("> **Error:** every run of fake (synthetic) · constrained errored");
    expect(await fs.readFile(path.join(root, "errored", "report.md"), "utf8")).toBe(md);
  });

  it("errorReason groups runs that failed alike and keeps other messages short", () => {
    expect(errorReason(`the model failed on turn 5: ${OVERFLOW}`)).toBe("context full (4096 tokens)");
    expect(errorReason("aborted")).toBe("aborted");
    expect(errorReason(undefined)).toBe("unknown");
    expect(errorReason("the model failed on turn 3: out of memory")).toBe("model failed: out of memory");
    expect(errorReason(`internal failure in the agent loop: ${"x".repeat(100)}`)).toBe("internal failure in the agent loop");
  });
});

describe("the default context holds the default plan", () => {
  it("room for the prompt and every turn's budget and results, and what runBench uses when none is given", async () => {
    const d = BENCH_DEFAULTS;
    const size = benchContextSize(d.maxTurns, d.maxTokens);
    expect(size).toBeGreaterThanOrEqual(d.promptReserve + d.maxTurns * (d.maxTokens + d.resultReserve));
    expect(size).toBe(14336);
    const seen: BenchLoadSettings[] = [];
    await runBench({
      models: [{ spec: "fake:x", lora: null }],
      modes: ["unconstrained"],
      tasksRoot: tasks,
      tasks: "add-task",
      seeds: 1,
      threads: 1,
      out: path.join(root, "default-context"),
      tmpRoot: root,
      sandbox: "off",
      openModel: failingOpener(seen),
    });
    expect(seen.map((s) => s.contextSize)).toEqual([size]);
  });
});

describe("qtc bench exits non-zero when a mode's runs all errored", () => {
  it("a context too small for the first prompt: exit 1, one line naming the mode and the reason, the report written", async () => {
    await tinyModelPath();
    let stdout = "";
    let stderr = "";
    const o = vi.spyOn(process.stdout, "write").mockImplementation((c: unknown) => ((stdout += String(c)), true));
    const e = vi.spyOn(process.stderr, "write").mockImplementation((c: unknown) => ((stderr += String(c)), true));
    const before = process.exitCode;
    const out = path.join(root, "cli-errored");
    let code: number;
    try {
      code = await main(["node", "qtc", "bench", "--model", "synthetic:tiny", "--mode", "constrained", "--tasks", path.join(tasks, "add-task"),
        "--seeds", "1", "--max-turns", "1", "--max-tokens", "16", "--threads", "1", "--context-size", "256", "--unsafe-no-sandbox", "--out", out]);
    } finally {
      o.mockRestore();
      e.mockRestore();
      process.exitCode = before;
    }
    expect(code).toBe(1);
    const line = stderr.trim().split("\n").filter((l) => l.startsWith("qtc bench: every run"));
    expect(line).toEqual(["qtc bench: every run of qtc-synthetic-tiny (synthetic) · constrained errored: 1 (context full (256 tokens) 1); its figures measure nothing (see transcripts.jsonl)"]);
    expect(stdout).toContain("1 (context full (256 tokens) 1)");
    expect(await fs.readFile(path.join(out, "report.md"), "utf8")).toContain("> **Error:** every run of qtc-synthetic-tiny");
  }, 120_000);
});
