// Owns: the verdict of a run: the task's tests run on a fresh copy of the task that holds the model's changes
// to its source files and nothing else of the run (never its tests, never a test file it added), in the
// sandbox, with the project read-only, so no code of the run can rewrite the tests it is judged by.

import { promises as fs } from "node:fs";
import path from "node:path";
import { runSuite } from "./run-tests.js";
import { openInside, SKIPPED_DIRS } from "./sandbox.js";
import type { TestRunRecord } from "./types.js";
import { createWorkspace, isTestFile, removeWorkspace, type Workspace } from "./workspace.js";

/**
 * True for what the judge takes from the task, never from the run: test files by node's patterns and
 * everything under a `test/` folder (fixtures the tests read).
 */
export function isTestMaterial(rel: string): boolean {
  return isTestFile(rel) || rel.split("/").slice(0, -1).includes("test");
}

/**
 * The regular files of the run's project the judge carries over (relative paths): source files, changed or
 * new. Symlinks are not followed or carried (the task's own come with the fresh copy), nor node_modules/.git.
 */
export async function changedSourceFiles(root: string, dir = root, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) out.push(...(await changedSourceFiles(root, path.join(dir, e.name), r)));
    else if (e.isFile() && !isTestMaterial(r)) out.push(r);
  }
  return out.sort();
}

const failed = (output: string): TestRunRecord => ({ passed: false, timedOut: false, exitCode: null, tests: null, output, ms: 0 });

/**
 * Judge a finished run: a fresh copy of the task (its shipped tests included) next to the run's folder, the
 * run's source files laid over it, the suite run on it in the sandbox with the project read-only. Files the
 * run deleted come back from the task. The copy is removed afterwards. Never throws.
 */
export async function judgeRun(ws: Workspace): Promise<TestRunRecord> {
  let fresh: Workspace | null = null;
  try {
    fresh = await createWorkspace(ws.taskDir, { limits: ws.limits, tmpRoot: path.dirname(ws.runDir), sandbox: ws.sandbox });
    const carried = await carryOver(ws, fresh);
    if (carried !== null) return failed(carried);
    return await runSuite(fresh, { readOnlyProject: true });
  } catch (e) {
    return failed(`the final test run failed: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    if (fresh) await removeWorkspace(fresh);
  }
}

/** Copy the run's source files into the fresh copy; a message when the caps are passed (nothing is judged then). */
async function carryOver(from: Workspace, to: Workspace): Promise<string | null> {
  const { maxJudgedFiles, maxJudgedBytes } = from.limits;
  const files = await changedSourceFiles(from.root);
  if (files.length > maxJudgedFiles) {
    return `The run left ${files.length} source files; at most ${maxJudgedFiles} are judged, so the run fails.`;
  }
  let bytes = 0;
  for (const rel of files) {
    const src = await openInside(from.root, path.join(from.root, rel), "read");
    if (!src.ok) continue; // gone or not a regular file any more: the task's version stays
    let data: Buffer;
    try {
      data = await src.handle.readFile();
    } finally {
      await src.handle.close();
    }
    bytes += data.length;
    if (bytes > maxJudgedBytes) return `The run's source files pass ${maxJudgedBytes} bytes; the run fails.`;
    // Written through directory handles: a path that goes through one of the task's own symlinks is refused.
    const dst = await openInside(to.root, path.join(to.root, rel), "write");
    if (!dst.ok) continue;
    try {
      await dst.handle.writeFile(data);
    } finally {
      await dst.handle.close();
    }
  }
  return null;
}
