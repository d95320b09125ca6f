// Owns: the tasks check: every bench task is well formed, its tests fail as shipped, and pass once its
// reference fix (`solution/`) is laid over the project, every test the suite defines passing, counted as the
// verdict of a run counts them (judge.ts). `npm run tasks:check` runs it on bench/tasks.

import { promises as fs } from "node:fs";
import path from "node:path";
import { QtcException } from "../errors.js";
import { SANDBOX_DEFAULTS, type SandboxLimits } from "./defaults.js";
import { resolveSandbox, type OsSandbox } from "./os-sandbox.js";
import { expectedTests, verdictProblems } from "./judge.js";
import { runSuite } from "./run-tests.js";
import {
  applySolution,
  createWorkspace,
  isTestFile,
  loadTask,
  removeWorkspace,
  SOLUTION_DIR,
  TASK_FILE,
} from "./workspace.js";

export interface TaskCheck {
  /** The folder name. */
  id: string;
  dir: string;
  ok: boolean;
  /** What is wrong, one line each; empty when ok. */
  problems: string[];
  /** Did the shipped project pass its tests (it must not)? null when not run. */
  shippedPassed: boolean | null;
  /** Did the project pass with the solution laid over it (it must)? null when not run. */
  fixedPassed: boolean | null;
  /** Tests the verdict of a run wants passed, counted on the shipped source; null when not run. */
  tests: number | null;
  ms: number;
}

export interface TasksCheckOptions {
  /** Tasks checked at the same time. Default: 2. */
  concurrency?: number;
  /** Sandbox caps (the test timeout matters here; `sandbox: "off"` allows unconfined runs). Default: SANDBOX_DEFAULTS. */
  limits?: Partial<SandboxLimits>;
  /** An OS sandbox already checked. Default: resolved from `limits.sandbox` (once for all tasks). */
  sandbox?: OsSandbox;
  /** Folder the run folders are created in. Default: os.tmpdir(). */
  tmpRoot?: string;
  /** Called as each task finishes. Default: none. */
  onResult?: (check: TaskCheck) => void;
}

/** The task folders under a root (folders holding a task.json), sorted by name. */
export async function listTaskDirs(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { withFileTypes: true });
  const dirs: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const dir = path.join(path.resolve(root), e.name);
    if (await fs.stat(path.join(dir, TASK_FILE)).catch(() => null)) dirs.push(dir);
  }
  return dirs.sort();
}

async function solutionFiles(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await solutionFiles(dir, r)));
    else out.push(r);
  }
  return out;
}

/** Check one task folder. Throws only `sandbox_unavailable` (before any check runs). */
export async function checkTask(taskDir: string, opts: TasksCheckOptions = {}): Promise<TaskCheck> {
  const started = performance.now();
  const dir = path.resolve(taskDir);
  const check: TaskCheck = { id: path.basename(dir), dir, ok: false, problems: [], shippedPassed: null, fixedPassed: null, tests: null, ms: 0 };
  const done = (): TaskCheck => {
    check.ok = check.problems.length === 0;
    check.ms = Math.round(performance.now() - started);
    return check;
  };
  try {
    await loadTask(dir);
  } catch (e) {
    check.problems.push(e instanceof QtcException ? e.message : `cannot read the task: ${(e as Error).message}`);
    return done();
  }
  const solDir = path.join(dir, SOLUTION_DIR);
  const sol = await solutionFiles(solDir).catch(() => null);
  if (!sol || sol.length === 0) {
    check.problems.push(`${SOLUTION_DIR}/ is missing or empty`);
    return done();
  }
  for (const rel of sol) {
    if (isTestFile(rel)) check.problems.push(`${SOLUTION_DIR}/${rel} is a test file; a fix must not change the tests`);
  }
  const limits = { ...SANDBOX_DEFAULTS, ...opts.limits };
  const ws = await createWorkspace(dir, { limits, tmpRoot: opts.tmpRoot, sandbox: opts.sandbox });
  try {
    if (await fs.stat(path.join(ws.root, SOLUTION_DIR)).catch(() => null)) {
      check.problems.push(`${SOLUTION_DIR}/ was copied into the workspace`);
    }
    // Read-only, as the verdict of a run sees the project (judge.ts), and counted as it counts.
    const shipped = await runSuite(ws, { readOnlyProject: true });
    const expected = expectedTests(shipped);
    check.shippedPassed = shipped.passed;
    check.tests = Object.values(expected).reduce((n, e) => n + e.count, 0);
    if (shipped.passed) check.problems.push("the tests pass as shipped; they must fail");
    else if (shipped.timedOut) check.problems.push(`the shipped tests ran past ${limits.testTimeoutMs} ms`);
    else if (shipped.tests === 0) check.problems.push("node --test found no tests");
    // A verdict wants an exact count only where the shipped suite runs each file through.
    for (const [file, e] of Object.entries(expected)) {
      if (!e.exact) check.problems.push(`${file} does not run to its end on the shipped source, so a run's verdict cannot count its tests`);
    }
    await applySolution(ws);
    const fixed = await runSuite(ws, { readOnlyProject: true });
    const problems = verdictProblems(fixed, expected);
    check.fixedPassed = problems.length === 0;
    if (problems.length > 0) check.problems.push(`the reference fix does not pass: ${problems.join("; ")}: ${lastLines(fixed.output, 6)}`);
  } catch (e) {
    check.problems.push(`the check failed: ${(e as Error).message}`);
  } finally {
    await removeWorkspace(ws);
  }
  return done();
}

function lastLines(text: string, n: number): string {
  return text.trim().split("\n").slice(-n).join(" | ");
}

/**
 * Check every task under `root`, `concurrency` at a time; results come back sorted by id. The suites run in the
 * OS sandbox, checked once first (`sandbox_unavailable` is thrown when it cannot run).
 */
export async function checkTasks(root: string, opts: TasksCheckOptions = {}): Promise<TaskCheck[]> {
  opts = { ...opts, sandbox: opts.sandbox ?? (await resolveSandbox({ ...SANDBOX_DEFAULTS, ...opts.limits }.sandbox)) };
  const dirs = await listTaskDirs(root);
  const results: TaskCheck[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < dirs.length) {
      const dir = dirs[next++]!;
      const r = await checkTask(dir, opts);
      results.push(r);
      opts.onResult?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, worker));
  return results.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
