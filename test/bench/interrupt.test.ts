// Ctrl-C through the real CLI process: the bench stops after the run in progress, keeps the transcripts of the
// finished runs, writes a partial report and exits 130; `--resume` then finishes only the missing runs.

import { spawn, spawnSync } from "node:child_process";
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRecords } from "../../src/bench/store.js";
import type { BenchReport } from "../../src/bench/types.js";
import { ADD_FIX, call, makeTasks, makeTmp } from "./helpers.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Build dist/ when a bench or CLI source is newer than its compiled file (npm test builds first anyway). */
function ensureBuilt(): void {
  const sources = ["src/bench/run-bench.ts", "src/bench/store.ts", "src/bench/progress.ts", "src/cli/commands/bench.ts", "src/harness/loop.ts"];
  const stale = sources.some((src) => {
    try {
      return statSync(path.join(repo, src)).mtimeMs > statSync(path.join(repo, src.replace(/^src/, "dist").replace(/\.ts$/, ".js"))).mtimeMs;
    } catch {
      return true;
    }
  });
  if (stale) spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { cwd: repo, stdio: "ignore" });
}

let root: string;
let tasks: string;
let replay: string;

beforeAll(async () => {
  ensureBuilt();
  root = await makeTmp();
  tasks = await makeTasks(path.join(root, "tasks"));
  replay = path.join(root, "fix-add.json");
  await fs.writeFile(replay, JSON.stringify([call("read_file", { path: "src/add.js" }), call("write_file", { path: "src/add.js", content: ADD_FIX }), "Fixed."]));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function qtc(args: string[], onStderr?: (text: string, kill: () => void) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repo, "bin", "qtc.js"), "bench", ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, TMPDIR: root },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr, () => child.kill("SIGINT"));
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("Ctrl-C and --resume", () => {
  it("stops, keeps finished runs, writes a partial report, exits 130; resume completes the rest", async () => {
    const out = path.join(root, "bench");
    const args = ["--model", `replay:${replay}`, "--constrained", "--tasks", tasks, "--seeds", "2", "--out", out];
    let sent = false;
    const stopped = await qtc(args, (text, kill) => {
      if (!sent && text.includes("[1/8]")) {
        sent = true;
        kill();
      }
    });
    expect(sent).toBe(true);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain("stopping after the current run");
    expect(stopped.stderr).toContain(`--resume ${out}`);
    expect(stopped.stderr).not.toMatch(/\n\s+at /);

    const partial = JSON.parse(await fs.readFile(path.join(out, "report.json"), "utf8")) as BenchReport;
    const kept = await readRecords(path.join(out, "transcripts.jsonl"));
    expect(partial.config.partial).toBe(true);
    expect(partial.config.runsDone).toBe(kept.length);
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeLessThan(8);
    expect(kept.every((r) => r.status === "answered")).toBe(true);
    for (const f of ["report.md", "chart.svg"]) expect((await fs.stat(path.join(out, f))).size).toBeGreaterThan(0);

    const resumed = await qtc(["--resume", out, "--json"]);
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as BenchReport;
    expect(report.config).toMatchObject({ partial: false, runsDone: 8, runsPlanned: 8 });
    expect(report.rows.map((r) => [r.mode, r.runs, r.tasksPassed])).toEqual([
      ["unconstrained", 4, 2],
      ["constrained", 4, 2],
    ]);
    const all = await readRecords(path.join(out, "transcripts.jsonl"));
    expect(all).toHaveLength(8);
    expect(new Set(all.map((r) => r.bench.key)).size).toBe(8);
    // The runs kept before the stop are the same lines, untouched.
    expect(all.slice(0, kept.length)).toEqual(kept);
  });
});
