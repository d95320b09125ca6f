// Issue 13, item 6 (follow-up): a source change that ends the test process early, `process.exit(0)` when the
// module is imported, made `node --test` exit 0, so the run was judged passed with no test run. The verdict now
// counts the tests the runner itself reports per test file and wants every test the task's suite defines to pass.
import { promises as fs } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkTask } from "../../src/harness/tasks-check.js";
import { ADD_TASK, makeScratch, makeTask, removeScratch, runWritingSource, type Scratch } from "../harness/helpers.js";

let s: Scratch;
let addTask: string;
let pairTask: string;
beforeAll(async () => {
  s = await makeScratch();
  addTask = await makeTask(s.tasks, ADD_TASK);
  // Two tests in one file: the second catches a source that exits once the first has passed.
  pairTask = await makeTask(s.tasks, {
    ...ADD_TASK,
    id: "pair-task",
    files: {
      ...ADD_TASK.files,
      "test/add.test.js":
        'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { add } from "../src/add.js";\n\n' +
        'test("adds", () => {\n  assert.equal(add(2, 3), 5);\n});\n\ntest("adds negatives", () => {\n  assert.equal(add(-2, -3), -5);\n});\n',
    },
  });
});
afterAll(async () => {
  await removeScratch(s);
});

const FIXED = "export function add(a, b) {\n  return a + b;\n}\n";

const judged = (task: string, source: string) => runWritingSource(task, source, s.runs);

describe("issue 13: the verdict counts the tests that passed", () => {
  it("a source that calls process.exit(0) when imported does not pass the run", async () => {
    const run = await judged(addTask, `process.exit(0);\n${FIXED}`);
    expect(run.finalTests.exitCode).toBe(0);
    expect(run.testsPassed).toBe(false);
    expect(run.finalTests.tests).toBe(0);
    expect(await fs.readdir(s.runs)).toEqual([]);
  });

  it("a source that exits 0 after the first test passed does not pass the run", async () => {
    const early = "let calls = 0;\nexport function add(a, b) {\n  if (++calls > 1) process.exit(0);\n  return a + b;\n}\n";
    const run = await judged(pairTask, early);
    expect(run.finalTests.exitCode).toBe(0);
    expect(run.testsPassed).toBe(false);
    // node may lose the first result with the exit; either way not both tests were counted.
    expect(run.finalTests.tests).toBeLessThan(2);
  });

  it("a summary printed by the source and an exit do not count as tests", async () => {
    const forged = `console.log("ℹ tests 1\\nℹ pass 1\\nℹ fail 0\\n# tests 1\\n# pass 1");\nprocess.exit(0);\n${FIXED}`;
    const run = await judged(addTask, forged);
    expect(run.testsPassed).toBe(false);
    expect(run.finalTests.tests).toBe(0);
  });

  it("a real fix passes, every test of the suite counted", async () => {
    const one = await judged(addTask, FIXED);
    expect(one.testsPassed).toBe(true);
    expect(one.finalTests.tests).toBe(1);
    const two = await judged(pairTask, FIXED);
    expect(two.testsPassed).toBe(true);
    expect(two.finalTests.tests).toBe(2);
    expect(await fs.readdir(s.runs)).toEqual([]);
  });

  it("tasks:check gives the count a run is judged by, and refuses a task whose shipped tests do not load", async () => {
    expect(await checkTask(pairTask, { tmpRoot: s.runs })).toMatchObject({ ok: true, tests: 2 });
    const broken = await makeTask(s.tasks, { ...ADD_TASK, id: "throws-on-import", files: { ...ADD_TASK.files, "src/add.js": 'throw new Error("not written yet");\n' } });
    const r = await checkTask(broken, { tmpRoot: s.runs });
    expect(r.ok).toBe(false);
    expect(r.fixedPassed).toBe(true);
    expect(r.problems.some((p) => p.startsWith("test/add.test.js does not run to its end"))).toBe(true);
  });
});
