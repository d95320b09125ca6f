// Owns: tests for src/harness/workspace.ts and test discovery: task.json checks, the copy without the solution,
// node's test-file patterns, and discovery that never follows links out of the workspace.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { findTestFiles } from "../../src/harness/run-tests.js";
import { createWorkspace, isTestFile, loadTask, removeWorkspace, restoreTests } from "../../src/harness/workspace.js";
import { ADD_TASK, makeScratch, makeTask, removeScratch, type Scratch } from "./helpers.js";

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return e instanceof QtcException ? e.code : "not a QtcException";
  }
  return undefined;
}

describe("loadTask", () => {
  it("reads a task", async () => {
    const dir = await makeTask(s.tasks, ADD_TASK);
    expect(await loadTask(dir)).toEqual({ id: "add-task", prompt: ADD_TASK.prompt, tags: ["test"], dir });
  });

  it.each([
    ["not json", "{"],
    ["a prompt on two lines", JSON.stringify({ id: "t", prompt: "a\nb", tags: [] })],
    ["an id unlike the folder", JSON.stringify({ id: "other", prompt: "p", tags: [] })],
    ["tags that are not strings", JSON.stringify({ id: "t", prompt: "p", tags: [1] })],
  ])("refuses %s with invalid_task", async (_, text) => {
    const dir = path.join(s.tasks, "t");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "task.json"), text);
    expect(await codeOf(loadTask(dir))).toBe("invalid_task");
  });

  it("refuses a folder without task.json with file_not_found", async () => {
    expect(await codeOf(loadTask(path.join(s.root, "nowhere")))).toBe("file_not_found");
  });
});

describe("isTestFile", () => {
  it.each([
    ["test/a.js", true],
    ["src/test/deep/a.mjs", true],
    ["a.test.js", true],
    ["a-test.cjs", true],
    ["a_test.js", true],
    ["test-a.js", true],
    ["test.js", true],
    ["src/a.js", false],
    ["test/readme.md", false],
    ["latest.js", false],
  ])("%s -> %s", (rel, expected) => {
    expect(isTestFile(rel)).toBe(expected);
  });
});

describe("workspaces", () => {
  it("copies the project without solution/ and task.json, and keeps links as links", async () => {
    const dir = await makeTask(s.tasks, { ...ADD_TASK, id: "copy-task", links: { "out": s.sentinel } });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    expect((await fs.readdir(ws.root)).sort()).toEqual(["out", "package.json", "src", "test"]);
    expect(await fs.readlink(path.join(ws.root, "out"))).toBe(s.sentinel);
    expect(ws.root).toBe(path.join(ws.runDir, "work"));
    expect(path.dirname(ws.runDir)).toBe(s.runs);
    await removeWorkspace(ws);
    expect(await fs.readdir(s.runs)).toEqual([]);
  });

  it("finds test files without following links out, and restoreTests puts the shipped tests back", async () => {
    await fs.mkdir(path.join(s.sentinel, "test"), { recursive: true });
    await fs.writeFile(path.join(s.sentinel, "test", "evil.test.js"), "throw new Error('ran outside');\n");
    const dir = await makeTask(s.tasks, { ...ADD_TASK, id: "find-task", links: { "linked": s.sentinel, "test/link.test.js": path.join(s.sentinel, "test", "evil.test.js") } });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    expect(await findTestFiles(ws.root)).toEqual(["test/add.test.js"]);
    await fs.writeFile(path.join(ws.root, "test", "add.test.js"), "// emptied\n");
    await fs.rm(path.join(ws.root, "test", "link.test.js"));
    await restoreTests(ws);
    expect(await fs.readFile(path.join(ws.root, "test", "add.test.js"), "utf8")).toBe(ADD_TASK.files["test/add.test.js"]);
    await removeWorkspace(ws);
  });
});
