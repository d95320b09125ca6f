// Owns: fixtures for the harness tests: a scratch folder with a sentinel area, small tasks built on the fly,
// and snapshots that prove nothing outside a run's folder changed.

import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { runAgent } from "../../src/harness/loop.js";
import { createReplayModel } from "../../src/harness/replay-model.js";
import type { AgentRun } from "../../src/harness/types.js";

export interface Scratch {
  root: string;
  /** Where run folders go (tmpRoot of the runs). */
  runs: string;
  /** Files the tests try to reach from inside a run; must never change. */
  sentinel: string;
  /** Tasks built by the test. */
  tasks: string;
}

export async function makeScratch(): Promise<Scratch> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "qtc-harness-test-")));
  const s = { root, runs: path.join(root, "runs"), sentinel: path.join(root, "sentinel"), tasks: path.join(root, "tasks") };
  await fs.mkdir(s.runs);
  await fs.mkdir(s.tasks);
  await fs.mkdir(path.join(s.sentinel, "deep"), { recursive: true });
  await fs.writeFile(path.join(s.sentinel, "secret.txt"), "TOP SECRET\naaaa\n");
  await fs.writeFile(path.join(s.sentinel, "deep", "keep.js"), "module.exports = 1;\n");
  return s;
}

export async function removeScratch(s: Scratch): Promise<void> {
  await fs.rm(s.root, { recursive: true, force: true });
}

/** Every path under `dir` (symlinks not followed) with its type, size and content hash. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(d: string, rel: string): Promise<void> {
    const entries = await fs.readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      const st = await fs.lstat(p);
      if (e.isDirectory()) {
        out[r] = "dir";
        await walk(p, r);
      } else if (e.isSymbolicLink()) out[r] = `link:${await fs.readlink(p)}`;
      else out[r] = `file:${st.size}:${createHash("sha256").update(await fs.readFile(p)).digest("hex")}:${st.mtimeMs}`;
    }
  }
  await walk(dir, "");
  return out;
}

export interface TaskSpec {
  id: string;
  prompt?: string;
  type?: "module" | "commonjs";
  files: Record<string, string>;
  solution?: Record<string, string>;
  /** Symlinks to create in the project: link path -> target. */
  links?: Record<string, string>;
}

/** Write a task folder under `root` and return its path. */
export async function makeTask(root: string, spec: TaskSpec): Promise<string> {
  const dir = path.join(root, spec.id);
  const write = async (rel: string, text: string): Promise<void> => {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  };
  await write("task.json", JSON.stringify({ id: spec.id, prompt: spec.prompt ?? `Fix ${spec.id}.`, tags: ["test"] }));
  await write("package.json", JSON.stringify({ name: spec.id, private: true, type: spec.type ?? "module" }));
  for (const [rel, text] of Object.entries(spec.files)) await write(rel, text);
  for (const [rel, text] of Object.entries(spec.solution ?? {})) await write(path.join("solution", rel), text);
  for (const [link, target] of Object.entries(spec.links ?? {})) {
    await fs.mkdir(path.dirname(path.join(dir, link)), { recursive: true });
    await fs.symlink(target, path.join(dir, link));
  }
  return dir;
}

/** A one-file ESM task: `src/add.js` adds wrongly; the solution adds right. */
export const ADD_TASK: TaskSpec = {
  id: "add-task",
  prompt: "add(a, b) in src/add.js is wrong; fix it.",
  files: {
    "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
    "test/add.test.js":
      'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { add } from "../src/add.js";\n\ntest("adds", () => {\n  assert.equal(add(2, 3), 5);\n});\n',
  },
  solution: { "src/add.js": "export function add(a, b) {\n  return a + b;\n}\n" },
};

/** A hermes call block (strict JSON between the tags). */
export function hermesCall(name: string, args: Record<string, string>): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

/** A run of `task` whose model writes `source` to src/add.js, then answers; the write itself must succeed. */
export async function runWritingSource(task: string, source: string, tmpRoot: string): Promise<AgentRun> {
  const model = createReplayModel([hermesCall("write_file", { path: "src/add.js", content: source }), "Done."]);
  const run = await runAgent({ task, model, tmpRoot });
  expect(run.turns[0]!.results[0]!.code).toBe("ok");
  return run;
}
