// Issue 13, item 6: the bench's verdict could be faked. A test file the model added (test/aaa.test.js)
// rewrote the restored task test before it ran, so testsPassed was true with the source untouched. A run is
// now judged on a fresh copy of the task: the model's changes to source files, the original tests.
import { promises as fs } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/harness/loop.js";
import { createReplayModel } from "../../src/harness/replay-model.js";
import { ADD_TASK, hermesCall, makeScratch, makeTask, removeScratch, type Scratch } from "../harness/helpers.js";

let s: Scratch;
let taskDir: string;
beforeAll(async () => {
  s = await makeScratch();
  taskDir = await makeTask(s.tasks, ADD_TASK);
});
afterAll(async () => {
  await removeScratch(s);
});

/** Runs first (sorted by name) and replaces the task's test with one that always passes. */
const REWRITER = [
  'import { writeFileSync } from "node:fs";',
  'import { test } from "node:test";',
  'writeFileSync(new URL("./add.test.js", import.meta.url), \'import { test } from "node:test";\\ntest("adds", () => {});\\n\');',
  'test("aaa", () => {});',
  "",
].join("\n");

const FIXED = "export function add(a, b) {\n  return a + b;\n}\n";

describe("issue 13: the verdict is judged on a fresh copy with the original tests", () => {
  it("an added test file that rewrites the task's test does not pass the run", async () => {
    const model = createReplayModel([hermesCall("write_file", { path: "test/aaa.test.js", content: REWRITER }), "Done."]);
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs });
    expect(run.turns[0]!.results[0]!.code).toBe("ok");
    expect(run.testsPassed).toBe(false);
    expect(run.finalTests.output).toContain("fail 1");
    expect(await fs.readdir(s.runs)).toEqual([]);
  });

  it("the same attack next to a real fix of the source passes, judged on the original test alone", async () => {
    const model = createReplayModel([
      hermesCall("write_file", { path: "test/aaa.test.js", content: REWRITER }),
      hermesCall("write_file", { path: "src/add.js", content: FIXED }),
      "Done.",
    ]);
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs });
    expect(run.testsPassed).toBe(true);
    expect(run.finalTests.tests).toBe(1);
    expect(await fs.readdir(s.runs)).toEqual([]);
  });
});
