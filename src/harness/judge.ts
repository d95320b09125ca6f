// Owns: the verdict of a run: the task's tests run on a fresh copy of the task that holds the model's changes
// to its source files and nothing else of the run (never its tests, never a test file it added), in the
// sandbox, with the project read-only, so no code of the run can rewrite the tests it is judged by; and the
// count it wants: every test the task's suite defines, counted on the same copy before the changes go in.

import { promises as fs } from "node:fs";
import path from "node:path";
import { runSuite, type FileCounts, type SuiteRun } from "./run-tests.js";
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

const failed = (output: string, ms = 0): TestRunRecord => ({ passed: false, timedOut: false, exitCode: null, tests: null, output, ms });

/** How many tests must pass in one test file: exactly `count`, or at least `count` where it could not be known. */
export interface ExpectedTests {
  count: number;
  exact: boolean;
}

/**
 * What the verdict wants of each test file, read from a run of the task's suite on its shipped source: every
 * test the runner reported there, passed or failed (skipped and todo ones are skipped again). A file that
 * reported no test and exited 0 (a helper under test/) wants none. Where the shipped run did not see a file
 * through (it crashed or timed out, or the runner did), the count is a lower bound of at least one.
 */
export function expectedTests(shipped: Pick<SuiteRun, "files" | "report">): Record<string, ExpectedTests> {
  const out: Record<string, ExpectedTests> = {};
  for (const file of shipped.files) {
    const c = shipped.report.files[file];
    const defined = c ? c.passed + c.failed : 0;
    const seenThrough = shipped.report.complete && c !== undefined && c.fileFailed === 0 && c.suiteFailures === 0;
    if (seenThrough && (defined > 0 || c.filePassed === 1)) out[file] = { count: defined, exact: true };
    else out[file] = { count: Math.max(defined, 1), exact: false };
  }
  return out;
}

/**
 * Why a judged run does not pass against `expected`, one line each; empty when it passes: the runner's own
 * outcome clean (exit 0, seen to its end), and in every test file as many passed tests as the suite defines,
 * none failed or cancelled. node's stand-in for a file counts only where the suite's file has no tests.
 */
export function verdictProblems(run: SuiteRun, expected: Record<string, ExpectedTests>): string[] {
  if (run.timedOut) return ["the tests timed out"];
  const problems: string[] = [];
  if (run.exitCode !== 0) problems.push(`a test file's node exited with ${run.exitCode === null ? "no exit code" : `code ${run.exitCode}`}`);
  if (!run.report.complete) problems.push("the test results were not all signed by the test reporter and seen to their end");
  for (const file of [...new Set([...Object.keys(expected), ...Object.keys(run.report.files)])].sort()) {
    const p = fileProblem(file || "(no file)", expected[file] ?? { count: 0, exact: true }, run.report.files[file]);
    if (p) problems.push(p);
  }
  return problems;
}

function fileProblem(file: string, want: ExpectedTests, got: FileCounts | undefined): string | null {
  const c = got ?? { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, suiteFailures: 0, filePassed: 0, fileFailed: 0 };
  const wanted = want.exact ? `${want.count}` : `at least ${want.count}`;
  if (c.failed > 0 || c.suiteFailures > 0) return `${file}: ${c.failed} failed (${c.cancelled} cancelled), ${c.suiteFailures} suites failed`;
  if (c.fileFailed > 0) return `${file}: the file failed before reporting its tests`;
  if (c.filePassed > 0 && want.count > 0) return `${file}: the file ended without reporting its tests; ${wanted} must pass`;
  if (want.exact ? c.passed !== want.count : c.passed < want.count) return `${file}: ${c.passed} tests passed; ${wanted} must pass`;
  return null;
}

/** The verdict's record: the judged run's, passed only when nothing is wrong, the reasons at the end of the output. */
function verdictRecord(run: SuiteRun, problems: string[], extraMs: number): TestRunRecord {
  const passedTests = Object.values(run.report.files).reduce((n, c) => n + c.passed, 0);
  const line = problems.length === 0 ? `\nVerdict: passed (${passedTests} of ${run.tests} tests).` : `\nVerdict: failed. ${problems.join("; ")}.`;
  return { passed: problems.length === 0, timedOut: run.timedOut, exitCode: run.exitCode, tests: run.tests, output: run.output + line, ms: run.ms + extraMs };
}

/**
 * Judge a finished run: a fresh copy of the task (its shipped tests included) next to the run's folder, its
 * suite run once as shipped (what it wants: expectedTests), the run's source files laid over it, the suite run
 * again, in the sandbox with the project read-only. Files the run deleted come back from the task. The copy is
 * removed afterwards. Never throws.
 */
export async function judgeRun(ws: Workspace): Promise<TestRunRecord> {
  let fresh: Workspace | null = null;
  try {
    fresh = await createWorkspace(ws.taskDir, { limits: ws.limits, tmpRoot: path.dirname(ws.runDir), sandbox: ws.sandbox });
    const shipped = await runSuite(fresh, { readOnlyProject: true });
    if (shipped.files.length === 0) return failed(shipped.output, shipped.ms);
    const expected = expectedTests(shipped);
    const carried = await carryOver(ws, fresh);
    if (carried !== null) return failed(carried, shipped.ms);
    const judged = await runSuite(fresh, { readOnlyProject: true });
    return verdictRecord(judged, verdictProblems(judged, expected), shipped.ms);
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
