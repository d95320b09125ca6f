// Owns: tests for src/harness/run-tests.ts: the suite runs with a minimal environment, is killed (with its whole
// process group) at the timeout, keeps only the tail of its output, and cannot write outside its run folder.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSuite, runTestsTool } from "../../src/harness/run-tests.js";
import { createWorkspace, removeWorkspace } from "../../src/harness/workspace.js";
import { makeScratch, makeTask, removeScratch, snapshot, type Scratch } from "./helpers.js";

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

/** A killed process may linger as a zombie when PID 1 does not reap orphans; that counts as dead. */
async function isAlive(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat !== null) return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Host pids of the live processes whose command line contains `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await fs.readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmd = await fs.readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmd.split("\0").includes(marker) && (await isAlive(Number(name)))) pids.push(Number(name));
  }
  return pids;
}

const testFile = (body: string): string =>
  `const { test } = require("node:test");\nconst assert = require("node:assert/strict");\n${body}\n`;

describe("runSuite", () => {
  it("passes a minimal environment: no secrets, HOME and TMPDIR inside the run folder", async () => {
    process.env.QTC_TEST_SECRET = "hunter2";
    try {
      const dir = await makeTask(s.tasks, {
        id: "env-task",
        type: "commonjs",
        files: {
          "test/env.test.js": testFile(
            'test("env", () => { console.log("ENV=" + JSON.stringify(process.env)); assert.equal(process.env.QTC_TEST_SECRET, undefined); });',
          ),
        },
      });
      const ws = await createWorkspace(dir, { tmpRoot: s.runs });
      const r = await runSuite(ws);
      await removeWorkspace(ws);
      expect(r.passed).toBe(true);
      expect(r.tests).toBe(1);
      const env = JSON.parse(/ENV=(\{.*\})/.exec(r.output)![1]!) as Record<string, string>;
      expect(env.HOME).toBe(ws.home);
      expect(env.TMPDIR).toBe(ws.tmp);
      expect(env.QTC_TEST_SECRET).toBeUndefined();
      // bwrap sets PWD (the working directory, the project folder) itself.
      expect(env.PWD).toBe(ws.root);
      expect(Object.keys(env).filter((k) => !k.startsWith("NODE_TEST")).sort()).toEqual(["HOME", "LANG", "NO_COLOR", "PATH", "PWD", "TMPDIR"]);
    } finally {
      delete process.env.QTC_TEST_SECRET;
    }
  });

  it("kills a test that never ends, with the processes it started", async () => {
    // The grandchild's pid is its pid inside the sandbox's pid namespace, so it is found on the host by a
    // marker in its command line instead.
    const marker = `qtc-grandchild-${process.pid}-${Date.now()}`;
    const dir = await makeTask(s.tasks, {
      id: "hang-task",
      type: "commonjs",
      files: {
        "test/hang.test.js": testFile(
          `test("hangs", async () => { const c = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", ${JSON.stringify(marker)}]); console.log("GRANDCHILD=" + c.pid); await new Promise(() => setInterval(() => {}, 1000)); });`,
        ),
      },
    });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs, limits: { testTimeoutMs: 1500 } });
    const running = (async () => {
      await new Promise((r) => setTimeout(r, 1200));
      return processesWith(marker);
    })();
    const outcome = await runTestsTool(ws);
    await removeWorkspace(ws);
    expect(outcome.code).toBe("timeout");
    expect(outcome.text.startsWith("Error: the tests did not finish within 1.5 s")).toBe(true);
    expect(Number(/GRANDCHILD=(\d+)/.exec(outcome.text)![1])).toBeGreaterThan(0);
    // it was running before the stop, and is gone after it
    const before = await running;
    expect(before.length).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    for (const pid of before) expect(await isAlive(pid)).toBe(false);
    expect(await processesWith(marker)).toEqual([]);
  });

  it("keeps the tail of a flood of output", async () => {
    const dir = await makeTask(s.tasks, {
      id: "flood-task",
      type: "commonjs",
      files: {
        "test/flood.test.js": testFile(
          'test("flood", () => { for (let i = 0; i < 20000; i++) console.log("line " + i); assert.equal(1, 2); });',
        ),
      },
    });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs, limits: { maxTestOutputChars: 500 } });
    const outcome = await runTestsTool(ws);
    await removeWorkspace(ws);
    expect(outcome.code).toBe("tests_failed");
    const body = outcome.text.split("\n").slice(2).join("\n");
    expect(outcome.text.split("\n")[1]).toMatch(/^\[… \d+ earlier characters cut\]$/);
    expect(body.length).toBeLessThanOrEqual(500);
    expect(body).toContain("fail 1");
  });

  it("confines the tests' own file access to the run folder", async () => {
    const before = await snapshot(s.sentinel);
    const target = path.join(s.sentinel, "written-by-test.txt");
    const dir = await makeTask(s.tasks, {
      id: "confine-task",
      type: "commonjs",
      files: {
        "test/escape.test.js": testFile(
          `const fs = require("node:fs");\ntest("write outside", () => { fs.writeFileSync(${JSON.stringify(target)}, "x"); });\ntest("read outside", () => { fs.readFileSync(${JSON.stringify(path.join(s.sentinel, "secret.txt"))}); });\ntest("write inside", () => { fs.writeFileSync("inside.txt", "x"); });`,
        ),
      },
    });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs, limits: { confineTests: true } });
    const r = await runSuite(ws);
    const inside = await fs.readFile(path.join(ws.root, "inside.txt"), "utf8");
    await removeWorkspace(ws);
    expect(r.passed).toBe(false);
    expect(r.output).toContain("pass 1");
    expect(r.output).toContain("fail 2");
    expect(r.output).toContain("ERR_ACCESS_DENIED");
    expect(inside).toBe("x");
    expect(await snapshot(s.sentinel)).toEqual(before);
  });
});
