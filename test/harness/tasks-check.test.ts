// Owns: tests for src/harness/tasks-check.ts: a good task passes; each kind of broken task is caught; and the full
// check over the 40 shipped bench tasks (what `npm run tasks:check` runs).

import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkTask, checkTasks } from "../../src/harness/tasks-check.js";
import { ADD_TASK, makeScratch, makeTask, removeScratch, type Scratch } from "./helpers.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

describe("checkTask", () => {
  it("accepts a task that fails as shipped and passes with its fix", async () => {
    const r = await checkTask(await makeTask(s.tasks, ADD_TASK), { tmpRoot: s.runs });
    expect(r).toMatchObject({ id: "add-task", ok: true, problems: [], shippedPassed: false, fixedPassed: true });
  });

  it("rejects a task whose tests already pass", async () => {
    const dir = await makeTask(s.tasks, { ...ADD_TASK, id: "passes-already", files: { ...ADD_TASK.files, "src/add.js": ADD_TASK.solution!["src/add.js"]! } });
    const r = await checkTask(dir, { tmpRoot: s.runs });
    expect(r).toMatchObject({ ok: false, shippedPassed: true, fixedPassed: true });
    expect(r.problems).toHaveLength(1);
  });

  it("rejects a task whose fix does not pass", async () => {
    const dir = await makeTask(s.tasks, { ...ADD_TASK, id: "bad-fix", solution: { "src/add.js": "export function add(a, b) {\n  return a * b;\n}\n" } });
    const r = await checkTask(dir, { tmpRoot: s.runs });
    expect(r).toMatchObject({ ok: false, shippedPassed: false, fixedPassed: false });
  });

  it("rejects a task without a solution, with a fix that edits the tests, or with a bad task.json", async () => {
    const none = await checkTask(await makeTask(s.tasks, { ...ADD_TASK, id: "no-solution", solution: {} }), { tmpRoot: s.runs });
    expect(none).toMatchObject({ ok: false, shippedPassed: null });
    const editsTests = await makeTask(s.tasks, {
      ...ADD_TASK,
      id: "edits-tests",
      solution: { ...ADD_TASK.solution, "test/add.test.js": 'import { test } from "node:test";\ntest("x", () => {});\n' },
    });
    expect((await checkTask(editsTests, { tmpRoot: s.runs })).ok).toBe(false);
    const wrongId = await makeTask(s.tasks, { ...ADD_TASK, id: "wrong-id" });
    await import("node:fs/promises").then((fs) => fs.writeFile(path.join(wrongId, "task.json"), JSON.stringify({ id: "other", prompt: "p", tags: [] })));
    expect(await checkTask(wrongId, { tmpRoot: s.runs })).toMatchObject({ ok: false, shippedPassed: null });
  });
});

describe("the shipped bench tasks", () => {
  it("all 40 fail as shipped and pass with their reference fix", { timeout: 600_000 }, async () => {
    const results = await checkTasks(path.join(repo, "bench", "tasks"), { concurrency: 2, tmpRoot: s.runs });
    expect(results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.problems.join("; ")}`)).toEqual([]);
    expect(results).toHaveLength(40);
  });
});
