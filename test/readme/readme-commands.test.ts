// The README's shell commands that no other test runs, run here as the README writes them (npx qtc, from the
// repo), with the changes test/readme/command-coverage.ts states: the bench gets a small turn budget, the server
// a free port. Needs dist/ built.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { REPO, readmeText, shellCommands } from "./readme-blocks.js";

const README_BENCH = "npx qtc bench --constrained --reference node-llama-cpp --model synthetic:tiny --tasks 5 --seeds 2 --threads 1";
const README_SERVE = "npx qtc serve --model synthetic:tiny --port 8080 --parallel 4";
const README_HELP = "npx qtc --help";

const root = mkdtempSync(join(tmpdir(), "qtc-readme-cmd-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const argsOf = (command: string) => command.split(" ").slice(1);

it("the commands run here are the README's", () => {
  const commands = shellCommands(readmeText()).map((c) => c.command);
  expect(commands).toContain(README_BENCH);
  expect(commands).toContain(README_SERVE);
  expect(commands).toContain(README_HELP);
});

it("the clone's npx qtc --help lists the commands", { timeout: 60_000 }, () => {
  const r = spawnSync("npx", argsOf(README_HELP), { cwd: REPO, encoding: "utf8", timeout: 55_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("Usage: qtc");
  for (const command of ["bench", "serve", "models", "run"]) expect(r.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
});

it("the README's bench command: three rows of 10 runs, constrained calls all valid", { timeout: 240_000 }, () => {
  const out = join(root, "bench");
  const r = spawnSync("npx", [...argsOf(README_BENCH), "--max-turns", "1", "--max-tokens", "64", "--out", out], { cwd: REPO, encoding: "utf8", timeout: 230_000 });
  expect(r.status, r.stderr).toBe(0);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { rows: { mode: string; runs: number; validityRate: number | null }[] };
  expect(report.rows.map((row) => [row.mode, row.runs])).toEqual([["unconstrained", 10], ["constrained", 10], ["reference", 10]]);
  expect(report.rows[1]!.validityRate).toBe(1);
});

/** Wait for the server's banner line and return its origin; fail if the process exits or 100 s pass. */
async function bannerUrl(stdout: () => string, stderr: () => string, exitCode: () => number | null): Promise<string> {
  const deadline = Date.now() + 100_000;
  while (Date.now() < deadline) {
    const m = /(http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(stdout());
    if (m) return m[1]!;
    if (exitCode() !== null) throw new Error(`qtc serve exited ${exitCode()}: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no banner in 100 s: ${stdout()}${stderr()}`);
}

it("the README's serve command listens on 127.0.0.1 with 4 slots", { timeout: 120_000 }, async () => {
  const args = argsOf(README_SERVE).map((a) => (a === "8080" ? "0" : a));
  const child = spawn("npx", args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += String(d)));
  child.stderr.on("data", (d) => (stderr += String(d)));
  try {
    const url = await bannerUrl(() => stdout, () => stderr, () => child.exitCode);
    const health = (await (await fetch(`${url}/health`)).json()) as { slots: unknown };
    expect(health.slots).toEqual({ total: 4, busy: 0, queued: 0 });
  } finally {
    // npx runs qtc as a child: signal the whole group this test started.
    if (child.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid, "SIGINT");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    }
  }
});
