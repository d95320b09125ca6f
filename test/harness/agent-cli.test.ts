// Owns: tests for `qtc agent` (src/cli/commands/agent.ts over src/harness): escape attempts replayed through the
// real CLI are refused or cut off with their codes, and nothing outside the run's folder changes.

import { spawnSync } from "node:child_process";
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentRun } from "../../src/harness/types.js";
import { ADD_TASK, hermesCall, makeScratch, makeTask, removeScratch, snapshot, type Scratch } from "./helpers.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Build dist/ when a harness or CLI source is newer than its compiled file (npm test builds first anyway). */
function ensureBuilt(): void {
  const sources = ["src/harness/loop.ts", "src/harness/fs-tools.ts", "src/harness/sandbox.ts", "src/harness/run-tests.ts", "src/harness/replay-model.ts", "src/cli/commands/agent.ts"];
  const stale = sources.some((src) => {
    const out = path.join(repo, src.replace(/^src/, "dist").replace(/\.ts$/, ".js"));
    try {
      return statSync(path.join(repo, src)).mtimeMs > statSync(out).mtimeMs;
    } catch {
      return true;
    }
  });
  if (stale) spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { cwd: repo, stdio: "ignore" });
}

let s: Scratch;
let escapeTask: string;
let addTask: string;

function qtc(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repo, "bin", "qtc.js"), ...args], {
    cwd: s.root,
    env: { PATH: process.env.PATH, TMPDIR: s.runs, QTC_SECRET: "do-not-leak" },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function replayFile(name: string, outputs: string[]): Promise<string> {
  const file = path.join(s.root, `${name}.json`);
  await fs.writeFile(file, JSON.stringify(outputs));
  return file;
}

beforeAll(async () => {
  ensureBuilt();
  s = await makeScratch();
  escapeTask = await makeTask(s.tasks, {
    ...ADD_TASK,
    id: "escape-task",
    links: {
      "etc-link": "/etc",
      "out-dir": s.sentinel,
      "secret-link": path.join(s.sentinel, "secret.txt"),
    },
  });
  addTask = await makeTask(s.tasks, ADD_TASK);
});
afterAll(async () => {
  await removeScratch(s);
});

describe("qtc agent", () => {
  it("refuses or cuts off every escape attempt, and nothing outside the run folder changes", async () => {
    const before = await snapshot(s.root);
    const secret = path.join(s.sentinel, "secret.txt");
    const attempts: [string, string][] = [
      [hermesCall("read_file", { path: "../../etc/passwd" }), "parent_path"],
      [hermesCall("read_file", { path: "/etc/passwd" }), "absolute_path"],
      [hermesCall("read_file", { path: secret }), "absolute_path"],
      [hermesCall("read_file", { path: "etc-link/passwd" }), "outside_workspace"],
      [hermesCall("list_files", { path: "etc-link" }), "outside_workspace"],
      [hermesCall("read_file", { path: "out-dir/deep/keep.js" }), "outside_workspace"],
      [hermesCall("write_file", { path: "out-dir/pwned.txt", content: "x" }), "outside_workspace"],
      [hermesCall("write_file", { path: "secret-link", content: "overwritten" }), "outside_workspace"],
      [hermesCall("write_file", { path: "../pwned.txt", content: "x" }), "parent_path"],
      [hermesCall("write_file", { path: path.join(s.sentinel, "pwned.txt"), content: "x" }), "absolute_path"],
      [hermesCall("write_file", { path: "huge.txt", content: "x".repeat(70_000) }), "too_large"],
      [hermesCall("grep", { pattern: "SECRET", path: "out-dir" }), "outside_workspace"],
      [hermesCall("grep", { pattern: "SECRET", path: "." }), "ok"],
      [hermesCall("list_files", { path: "~" }), "absolute_path"],
      [hermesCall("grep", { pattern: "([", path: "." }), "invalid_regex"],
      [hermesCall("write_file", { path: "long.txt", content: `${"a".repeat(60_000)}b` }), "ok"],
      [hermesCall("grep", { pattern: "(a+)+$", path: "long.txt" }), "ok"],
      [
        hermesCall("write_file", {
          path: "test/escape.test.js",
          content: `import { test } from "node:test";\nimport fs from "node:fs";\ntest("escape", () => { fs.writeFileSync(${JSON.stringify(path.join(s.sentinel, "from-test.txt"))}, "x"); fs.appendFileSync(${JSON.stringify(secret)}, "x"); });\n`,
        }),
        "ok",
      ],
      [hermesCall("run_tests", {}), "tests_failed"],
      [
        hermesCall("write_file", {
          path: "test/hang.test.js",
          content: 'import { test } from "node:test";\ntest("forever", () => new Promise(() => setInterval(() => {}, 1000)));\n',
        }),
        "ok",
      ],
      [hermesCall("run_tests", {}), "timeout"],
    ];
    const file = await replayFile("escapes", [...attempts.map(([o]) => o), "I could not get out."]);
    // The tests' time limit only has to stop the hang: generous, so a loaded machine never cuts off the run that
    // must finish (tests_failed) and turns it into a timeout.
    const r = qtc(["agent", "--task", escapeTask, "--model", `replay:${file}`, "--max-turns", "30", "--test-timeout", "15000", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout) as AgentRun;
    expect(run.status).toBe("answered");
    expect(run.turns.slice(0, -1).map((t) => t.results.map((x) => x.code))).toEqual(attempts.map(([, code]) => [code]));
    // each refusal says what happened, in words the model can act on
    const texts = run.turns.map((t) => t.results[0]?.content ?? "");
    expect(texts[0]).toMatch(/^Error: .*"\.\."/);
    expect(texts[10]).toMatch(/^Error: the content is 70000 bytes; one write may be at most 65536 bytes/);
    expect(texts[12]).toBe('No matches for "SECRET" in ..');
    expect(texts[14]).toMatch(/^Error: invalid regular expression/);
    expect(texts[16]).toBe('No matches for "(a+)+$" in long.txt.');
    expect(texts[18]).toContain("ERR_ACCESS_DENIED");
    expect(texts[20]).toMatch(/^Error: the tests did not finish within 15 s/);
    // the verdict runs the task's own tests on a fresh copy: the hang test (and escape test) the model added
    // take no part, so the final check fails on the unfixed source instead of timing out
    expect(run.finalTests.timedOut).toBe(false);
    expect(run.finalTests.tests).toBe(1);
    expect(run.finalTests.output).toContain("fail 1");
    expect(run.testsPassed).toBe(false);
    expect(run.sandbox).toBe("bwrap");
    // nothing outside the run folder changed, and the run folder itself is gone
    expect(await snapshot(s.root)).toEqual({ ...before, "escapes.json": expect.any(String) as unknown as string });
    expect(await fs.readdir(s.runs)).toEqual([]);
  });

  it("a replayed fix prints a summary that ends answered with tests passing, and writes the transcript", async () => {
    const file = await replayFile("fix", [
      hermesCall("read_file", { path: "src/add.js" }),
      hermesCall("write_file", { path: "src/add.js", content: ADD_TASK.solution!["src/add.js"]! }),
      hermesCall("run_tests", {}),
      "Fixed.",
    ]);
    const transcript = path.join(s.root, "out", "t.jsonl");
    const r = qtc(["agent", "--task", addTask, "--model", `replay:${file}`, "--transcript", transcript, "--mode", "unconstrained", "--seed", "3"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain("status   answered");
    expect(lines).toContain("calls    3 blocks: 3 valid, 0 invalid");
    expect(lines.some((l) => /^tests {4}passed \(1 tests, \d+ ms\)$/.test(l))).toBe(true);
    const record = JSON.parse((await fs.readFile(transcript, "utf8")).trim()) as AgentRun;
    expect(record).toMatchObject({ task: "add-task", mode: "unconstrained", seed: 3, status: "answered", testsPassed: true });
    expect(JSON.stringify(record)).not.toContain("do-not-leak");
  });

  it("without bwrap the run is refused (sandbox_unavailable, exit 1) unless --unsafe-no-sandbox allows it", async () => {
    const file = await replayFile("fix-unconfined", [hermesCall("write_file", { path: "src/add.js", content: ADD_TASK.solution!["src/add.js"]! }), "Fixed."]);
    const args = ["agent", "--task", addTask, "--model", `replay:${file}`, "--json"];
    const env = { PATH: path.join(s.root, "no-bwrap-here"), TMPDIR: s.runs };
    const refused = spawnSync(process.execPath, [path.join(repo, "bin", "qtc.js"), ...args], { cwd: s.root, env, encoding: "utf8" });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("--unsafe-no-sandbox");
    expect(await fs.readdir(s.runs)).toEqual([]);
    const allowed = spawnSync(process.execPath, [path.join(repo, "bin", "qtc.js"), ...args, "--unsafe-no-sandbox"], { cwd: s.root, env, encoding: "utf8" });
    expect(allowed.status).toBe(0);
    const run = JSON.parse(allowed.stdout) as AgentRun;
    expect(run.sandbox).toBe("off");
    expect(run.testsPassed).toBe(true);
  });

  it("bad input is one line and exit code 2", async () => {
    const missingTask = qtc(["agent", "--task", path.join(s.root, "nope"), "--model", `replay:${await replayFile("empty", [])}`]);
    expect(missingTask.code).toBe(2);
    expect(missingTask.stderr.trim().split("\n")).toHaveLength(1);
    expect(qtc(["agent", "--task", addTask, "--model", "replay:/no/such/file.json"]).code).toBe(2);
    expect(qtc(["agent", "--task", addTask, "--model", "x", "--max-turns", "0"]).code).toBe(2);
    expect(qtc(["agent", "--task", addTask, "--model", "x", "--mode", "fast"]).code).toBe(2);
  });
});
