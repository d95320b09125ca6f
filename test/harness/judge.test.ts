// Owns: tests for src/harness/judge.ts: what is carried from a run into the fresh copy it is judged on (source
// files, new or changed; never tests, test fixtures, symlinks or node_modules), and that carrying never writes
// through one of the task's own symlinks.
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedSourceFiles, isTestMaterial, judgeRun } from "../../src/harness/judge.js";
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
