// `qtc bench` through the CLI (in process): bad flags exit 2 before anything runs; a replayed bench prints
// its table or its report as JSON and writes the four files.

import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { BenchReport } from "../../src/bench/types.js";
import { main } from "../../src/cli/cli.js";
import { ADD_FIX, call, makeTasks, makeTmp } from "./helpers.js";

let root: string;
let tasks: string;
let replay: string;

async function qtc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => ((stdout += String(chunk)), true));
  const errw = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => ((stderr += String(chunk)), true));
  const before = process.exitCode;
  try {
    const code = await main(["node", "qtc", "bench", ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    errw.mockRestore();
    process.exitCode = before;
  }
}

beforeAll(async () => {
  root = await makeTmp();
  tasks = await makeTasks(path.join(root, "tasks"));
  replay = path.join(root, "fix-add.json");
  await fs.writeFile(replay, JSON.stringify([call("write_file", { path: "src/add.js", content: ADD_FIX }), "Fixed."]));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("bad flags exit 2 with one line", () => {
  const cases: [string, string[]][] = [
    ["seeds 0", ["--seeds", "0"]],
    ["a tool choice that does not exist", ["--tool-choice", "maybe"]],
    ["thinking neither on nor off", ["--thinking", "maybe"]],
    ["an unknown gpu", ["--gpu", "tpu"]],
    ["an unknown reference", ["--reference", "llama.cpp"]],
    ["max tokens not a number", ["--max-tokens", "lots"]],
    ["--lora before any --model", ["--lora", "a.gguf", "--model", "synthetic:tiny"]],
    ["two --lora for one model", ["--model", "synthetic:tiny", "--lora", "a.gguf", "--lora", "b.gguf"]],
    ["--mode with --constrained", ["--mode", "constrained", "--constrained"]],
    ["--no-baseline with nothing else", ["--no-baseline"]],
    ["an unknown task id", ["--tasks", "no-such-task"]],
    ["--resume of a folder that is not a bench", ["--resume", "/nonexistent-bench"]],
    ["an unknown flag", ["--frobnicate"]],
  ];
  for (const [what, args] of cases) {
    it(what, async () => {
      const r = await qtc(...args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it("a missing replay file, and --lora on a replay", async () => {
    expect((await qtc("--model", "replay:/nonexistent.json", "--tasks", tasks, "--out", path.join(root, "x1"))).code).toBe(2);
    const r = await qtc("--model", `replay:${replay}`, "--lora", replay, "--tasks", tasks, "--out", path.join(root, "x2"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--lora");
  });
});

describe("the default model offline", () => {
  it("fails with the model layer's one-line message about --model, exit 1, and writes nothing", async () => {
    const saved = { ...process.env };
    process.env.QTC_MODELS_DIR = path.join(root, "empty-models");
    process.env.QTC_HF_ENDPOINT = "http://127.0.0.1:1/";
    try {
      const out = path.join(root, "offline");
      const r = await qtc("--tasks", tasks, "--seeds", "1", "--out", out);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("--model synthetic:tiny");
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(out)).toBe(false);
    } finally {
      process.env = saved;
    }
  });
});

describe("a replayed bench through the CLI", () => {
  it("prints the table and writes the four files", async () => {
    const out = path.join(root, "cli-table");
    const r = await qtc("--model", `replay:${replay}`, "--constrained", "--tasks", path.join(tasks, "add-task"), "--seeds", "1", "--out", out);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("replay:fix-add.json (synthetic)");
    expect(r.stdout).toMatch(/constrained .*100\.0% \(1\/1\)/);
    expect(r.stdout).toContain("synthetic weights: validity tests the guarantee, not model quality");
    // not a TTY: one plain progress line per run
    expect(r.stderr).toContain("[1/2] replay:fix-add.json unconstrained add-task seed 0: answered, tests pass, 1/1 blocks valid");
    for (const f of ["report.json", "report.md", "chart.svg", "transcripts.jsonl"]) expect(existsSync(path.join(out, f))).toBe(true);
  });

  it("--json prints report.json's content", async () => {
    const out = path.join(root, "cli-json");
    const r = await qtc("--model", `replay:${replay}`, "--mode", "constrained", "--tasks", tasks, "--seeds", "1", "--max-turns", "2", "--json", "--out", out);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as BenchReport;
    expect(report).toEqual(JSON.parse(await fs.readFile(path.join(out, "report.json"), "utf8")));
    expect(report.rows.map((row) => [row.mode, row.runs, row.tasksPassed, row.validityRate])).toEqual([["constrained", 2, 1, 1]]);
    expect(report.config.maxTurns).toBe(2);
  });
});
