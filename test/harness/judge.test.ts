// Owns: tests for src/harness/judge.ts: what is carried from a run into the fresh copy it is judged on (source
// files, new or changed; never tests, test fixtures, symlinks or node_modules), that carrying never writes
// through one of the task's own symlinks, and how the verdict counts tests (expectedTests, verdictProblems).
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedSourceFiles, expectedTests, isTestMaterial, judgeRun, verdictProblems } from "../../src/harness/judge.js";
import type { FileCounts, SuiteRun } from "../../src/harness/run-tests.js";
import { createWorkspace, removeWorkspace } from "../../src/harness/workspace.js";
import { ADD_TASK, makeScratch, makeTask, removeScratch, snapshot, type Scratch } from "./helpers.js";

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

const write = async (root: string, rel: string, text: string): Promise<void> => {
  await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await fs.writeFile(path.join(root, rel), text);
};

describe("isTestMaterial", () => {
  it("test files by node's patterns and anything under a test/ folder", () => {
    for (const rel of ["test/a.test.js", "a.test.mjs", "src/b-test.js", "test-c.cjs", "test.js", "test/fixtures/data.json", "x/test/y.txt"]) {
      expect(isTestMaterial(rel)).toBe(true);
    }
    for (const rel of ["src/add.js", "package.json", "tests/helper.txt", "src/testing.js", "README.md"]) expect(isTestMaterial(rel)).toBe(false);
  });
});

describe("judgeRun", () => {
  it("carries new and changed source files, not test files, fixtures, node_modules or symlinks", async () => {
    const dir = await makeTask(s.tasks, { ...ADD_TASK, id: "carry-task", files: { ...ADD_TASK.files, "test/fixtures/n.json": "5\n" } });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    await write(ws.root, "src/add.js", 'export { add } from "./impl.js";\n');
    await write(ws.root, "src/impl.js", "export const add = (a, b) => a + b;\n");
    await write(ws.root, "test/fixtures/n.json", "6\n");
    await write(ws.root, "test/extra.test.js", 'import { test } from "node:test";\ntest("x", () => { throw new Error("runs"); });\n');
    await write(ws.root, "node_modules/x/index.js", "");
    await fs.symlink("src/impl.js", path.join(ws.root, "link.js"));
    expect(await changedSourceFiles(ws.root)).toEqual(["package.json", "src/add.js", "src/impl.js"]);
    const r = await judgeRun(ws);
    await removeWorkspace(ws);
    expect(r.passed).toBe(true);
    expect(r.tests).toBe(1);
    expect(await fs.readdir(s.runs)).toEqual([]);
  });

  it("a task's symlink to outside, swapped by the run for a real folder, is not written through", async () => {
    const dir = await makeTask(s.tasks, { ...ADD_TASK, id: "link-task", links: { out: s.sentinel } });
    const before = await snapshot(s.sentinel);
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    await fs.unlink(path.join(ws.root, "out"));
    await write(ws.root, "out/pwned.js", "pwned\n");
    await write(ws.root, "out/secret.txt", "overwritten\n");
    const r = await judgeRun(ws);
    await removeWorkspace(ws);
    expect(r.passed).toBe(false);
    expect(r.output).toContain("fail 1");
    expect(await snapshot(s.sentinel)).toEqual(before);
  });

  it("a run that leaves more source files than the cap fails its verdict", async () => {
    const dir = await makeTask(s.tasks, { ...ADD_TASK, id: "many-files" });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs, limits: { maxJudgedFiles: 3 } });
    await write(ws.root, "src/add.js", ADD_TASK.solution!["src/add.js"]!);
    for (const n of [1, 2, 3]) await write(ws.root, `src/extra${n}.js`, "");
    const r = await judgeRun(ws);
    await removeWorkspace(ws);
    expect(r.passed).toBe(false);
    expect(r.exitCode).toBeNull();
    expect(r.output).toMatch(/at most 3 are judged/);
  });
});

const counts = (c: Partial<FileCounts>): FileCounts => ({
  passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, suiteFailures: 0, filePassed: 0, fileFailed: 0, ...c,
});
const suiteRun = (files: Record<string, Partial<FileCounts>>, over: Partial<SuiteRun> = {}): SuiteRun => ({
  passed: true, timedOut: false, exitCode: 0, tests: 0, output: "", ms: 0, files: Object.keys(files),
  report: { complete: true, files: Object.fromEntries(Object.entries(files).map(([f, c]) => [f, counts(c)])) },
  ...over,
});

describe("expectedTests", () => {
  it("wants every test the shipped run reported, none in a helper file, a lower bound where a file broke", () => {
    const shipped = suiteRun({
      "test/a.test.js": { passed: 1, failed: 2, cancelled: 1, skipped: 1, todo: 1 },
      "test/helper.js": { filePassed: 1 },
      "test/crash.test.js": { passed: 1, fileFailed: 1 },
      "test/load.test.js": { fileFailed: 1 },
    });
    shipped.files.push("test/unseen.test.js");
    expect(expectedTests(shipped)).toEqual({
      "test/a.test.js": { count: 3, exact: true },
      "test/helper.js": { count: 0, exact: true },
      "test/crash.test.js": { count: 1, exact: false },
      "test/load.test.js": { count: 1, exact: false },
      "test/unseen.test.js": { count: 1, exact: false },
    });
  });

  it("counts nothing as exact when the runner did not report to its end", () => {
    const shipped = suiteRun({ "test/a.test.js": { failed: 2 } });
    shipped.report.complete = false;
    expect(expectedTests(shipped)).toEqual({ "test/a.test.js": { count: 2, exact: false } });
  });
});

describe("verdictProblems", () => {
  const want = { "test/a.test.js": { count: 2, exact: true }, "test/helper.js": { count: 0, exact: true } };
  it("passes exactly the expected passes per file, a helper file's stand-in included", () => {
    expect(verdictProblems(suiteRun({ "test/a.test.js": { passed: 2 }, "test/helper.js": { filePassed: 1 } }), want)).toEqual([]);
  });

  it("fails too few or too many passes, a stand-in for a file with tests, failures, unknown files, a bad exit", () => {
    const cases: [Record<string, Partial<FileCounts>>, Partial<SuiteRun>][] = [
      [{ "test/a.test.js": { passed: 1 } }, {}],
      [{ "test/a.test.js": { passed: 3 } }, {}],
      [{ "test/a.test.js": { filePassed: 1 } }, {}],
      [{ "test/a.test.js": { passed: 2, failed: 1, cancelled: 1 } }, {}],
      [{ "test/a.test.js": { passed: 2, suiteFailures: 1 } }, {}],
      [{ "test/a.test.js": { passed: 2 }, "": { failed: 1 } }, {}],
      [{ "test/a.test.js": { passed: 2 }, "test/new.test.js": { passed: 1 } }, {}],
      [{ "test/a.test.js": { passed: 2 } }, { exitCode: 1 }],
      [{ "test/a.test.js": { passed: 2 } }, { timedOut: true, exitCode: null }],
    ];
    for (const [files, over] of cases) expect(verdictProblems(suiteRun(files, over), want)).not.toEqual([]);
    const broken = suiteRun({ "test/a.test.js": { passed: 2 } });
    broken.report.complete = false;
    expect(verdictProblems(broken, want)).not.toEqual([]);
  });

  it("a lower bound passes at or above it", () => {
    const low = { "test/a.test.js": { count: 1, exact: false } };
    expect(verdictProblems(suiteRun({ "test/a.test.js": { passed: 3 } }), low)).toEqual([]);
    expect(verdictProblems(suiteRun({ "test/a.test.js": { passed: 0 } }), low)).not.toEqual([]);
  });
});

describe("judgeRun counts the tests the runner reports", () => {
  const HELPER_TASK = {
    ...ADD_TASK,
    id: "helper-task",
    files: {
      ...ADD_TASK.files,
      "test/helper.js": "export const five = 5;\n",
      "test/add.test.js":
        'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { add } from "../src/add.js";\nimport { five } from "./helper.js";\n\ntest("adds", () => {\n  assert.equal(add(2, 3), five);\n});\n',
    },
  };
  const judgeWith = async (id: string, source: string) => {
    const dir = path.join(s.tasks, id);
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    await write(ws.root, "src/add.js", source);
    const r = await judgeRun(ws);
    await removeWorkspace(ws);
    return r;
  };

  it("a test/ helper without tests does not stop a real fix from passing", async () => {
    await makeTask(s.tasks, HELPER_TASK);
    const r = await judgeWith("helper-task", ADD_TASK.solution!["src/add.js"]!);
    expect(r.passed).toBe(true);
    expect(r.tests).toBe(1);
  });

  it("lines in the counting reporter's own format, printed by the source, count for nothing", async () => {
    const line = (ok: boolean) =>
      `qtc-test-report ${JSON.stringify({ ok, file: "x", name: "adds", nesting: 0, suite: false, skip: false, todo: false, cancelled: false })}`;
    const forged = `for (const out of [console.log, console.error]) out(${JSON.stringify(`${line(true)}\n${line(true)}`)});\nprocess.exit(0);\n`;
    const r = await judgeWith("helper-task", forged + ADD_TASK.solution!["src/add.js"]!);
    expect(r.passed).toBe(false);
    expect(r.tests).toBe(0);
    expect(await fs.readdir(s.runs)).toEqual([]);
  });
});
