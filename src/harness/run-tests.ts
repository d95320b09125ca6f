// Owns: running a workspace's `node --test` suite: test files found without following links out, a minimal
// environment, the OS sandbox (and Node's permission model inside it), a timeout that kills the whole process
// tree, a capped, tail-kept output, and the per-file test counts read from a reporter in the runner's own
// process. Used by the run_tests tool, the final check and tasks:check.

import { spawn } from "node:child_process";
import path from "node:path";
import { confine } from "./os-sandbox.js";
import { walkInside } from "./sandbox.js";
import { guardFlags } from "./test-guard.js";
import type { TestRunRecord, ToolOutcome } from "./types.js";
import { isTestFile, type Workspace } from "./workspace.js";

/** Stack frames inside Node itself: noise for the model. (Chunks may split a frame; the rest is kept as is.) */
const INTERNAL_FRAME = /^ *at (?:.*\()?node:(?:internal|async_hooks)[^\n]*\n/gm;

/** Keeps the last `max` characters of a stream of chunks, and counts all of them. */
class TailBuffer {
  private text = "";
  total = 0;
  constructor(private readonly max: number) {}
  push(chunk: string): void {
    chunk = chunk.replace(INTERNAL_FRAME, "");
    this.total += chunk.length;
    this.text += chunk;
    if (this.text.length > this.max * 2) this.text = this.text.slice(-this.max);
  }
  value(): string {
    return this.text.length > this.max ? this.text.slice(-this.max) : this.text;
  }
}

/**
 * The environment of the test process: PATH only, with HOME and TMPDIR inside the run folder. Nothing else
 * of the caller's environment (tokens, keys, NODE_OPTIONS, NODE_TEST_CONTEXT) passes through.
 */
export function testEnvironment(ws: Pick<Workspace, "home" | "tmp">): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: ws.home,
    TMPDIR: ws.tmp,
    NO_COLOR: "1",
    LANG: "C.UTF-8",
  };
}

/**
 * Node flags that confine the test process (and the per-file processes `node --test` starts, which inherit
 * them) to the run folder: reads and writes there only, no workers, no addons. Empty when this Node has no
 * permission model.
 */
export function confinementFlags(runDir: string): string[] {
  const flags = process.allowedNodeEnvironmentFlags;
  const permission = flags.has("--permission") ? "--permission" : flags.has("--experimental-permission") ? "--experimental-permission" : null;
  if (!permission) return [];
  // The test runner itself spawns one process per test file, so child processes must stay allowed.
  return ["--no-warnings", permission, `--allow-fs-read=${runDir}`, `--allow-fs-write=${runDir}`, "--allow-child-process"];
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

/**
 * The test files of a workspace, by node's default patterns (see isTestFile), found by a walk that never
 * follows a symlinked folder or a link to outside: node's own discovery would follow them out of the project.
 */
export async function findTestFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for await (const e of walkInside(root, root, ".")) {
    if (e.kind === "file" && isTestFile(e.rel)) files.push(path.relative(root, e.real).split(path.sep).join("/"));
  }
  return [...new Set(files)].sort();
}

/** What the runner reported for one test file. */
export interface FileCounts {
  /** Tests that passed (skipped and todo ones not counted). */
  passed: number;
  /** Tests that failed, cancelled ones included. */
  failed: number;
  cancelled: number;
  skipped: number;
  todo: number;
  /** Suites that failed themselves (a hook threw). */
  suiteFailures: number;
  /** node's stand-in result named by the file itself, when the file reported no tests of its own: 0 or 1. */
  filePassed: number;
  fileFailed: number;
}

/** The counts of a suite run, by test file (relative to the project; "" for results that name no file). */
export interface SuiteReport {
  /** The reporter saw the runner to its end, and every line it wrote was well formed. */
  complete: boolean;
  files: Record<string, FileCounts>;
}

/** A suite run: the record, the test files it ran, and the counts. */
export interface SuiteRun extends TestRunRecord {
  files: string[];
  report: SuiteReport;
}

/** Prefix of the lines the counting reporter writes; only the runner's own stderr carries them. */
const REPORT_MARK = "qtc-test-report ";

/**
 * The counting reporter, a module node --test loads in its own process (test files run in child processes
 * whose output reaches it only as events). It writes one line per test result and one at the end to the
 * runner's stderr, while the readable spec output goes to stdout, where a test's own stdout and stderr are
 * echoed: a summary a test prints can never pass for one of these lines. A data: URL, so no file of the run
 * (writable by its tests) holds it.
 */
const REPORTER_SOURCE = `const M = ${JSON.stringify(REPORT_MARK)};
const set = (v) => v !== undefined && v !== false && v !== null;
export default async function* qtcCount(source) {
  for await (const e of source) {
    if (e.type !== "test:pass" && e.type !== "test:fail") continue;
    const d = e.data;
    yield M + JSON.stringify({ ok: e.type === "test:pass", file: d.file ?? null, name: String(d.name), nesting: d.nesting,
      suite: d.details?.type === "suite", skip: set(d.skip), todo: set(d.todo),
      cancelled: d.details?.error?.failureType === "cancelledByParent" }) + "\\n";
  }
  yield M + JSON.stringify({ end: true }) + "\\n";
}
`;
export const COUNTING_REPORTER = `data:text/javascript,${encodeURIComponent(REPORTER_SOURCE)}`;

interface ReportLine {
  ok: boolean;
  file: string | null;
  name: string;
  nesting: number;
  suite: boolean;
  skip: boolean;
  todo: boolean;
  cancelled: boolean;
}

const zeroCounts = (): FileCounts => ({ passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, suiteFailures: 0, filePassed: 0, fileFailed: 0 });

/** Tests the runner reported in a file (passed, failed, skipped, todo); not node's stand-in for the file. */
export const testsIn = (c: FileCounts): number => c.passed + c.failed + c.skipped + c.todo;

/**
 * Reads the runner's stderr: the counting reporter's lines become counts, the rest is passed on (whole lines)
 * as output. A malformed line, a second end line or a result after it leaves the report incomplete.
 */
class ReportReader {
  private partial = "";
  private ended = 0;
  private malformed = false;
  private readonly files: Record<string, FileCounts> = {};
  constructor(
    private readonly root: string,
    private readonly onText: (text: string) => void,
    private readonly maxLine: number,
  ) {}

  push(chunk: string): void {
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) this.line(line);
    // A line that never ends is not one of the reporter's: show it rather than hold it.
    if (this.partial.length > this.maxLine && !this.partial.startsWith(REPORT_MARK)) {
      this.onText(this.partial);
      this.partial = "";
    }
  }

  end(): SuiteReport {
    if (this.partial) this.line(this.partial);
    this.partial = "";
    return { complete: this.ended === 1 && !this.malformed, files: this.files };
  }

  private line(line: string): void {
    if (!line.startsWith(REPORT_MARK)) {
      this.onText(`${line}\n`);
      return;
    }
    let r: Partial<ReportLine> & { end?: boolean };
    try {
      r = JSON.parse(line.slice(REPORT_MARK.length)) as typeof r;
    } catch {
      this.malformed = true;
      return;
    }
    if (r.end === true) this.ended++;
    else if (this.ended > 0 || typeof r.ok !== "boolean") this.malformed = true;
    else this.count(r as ReportLine);
  }

  private count(r: ReportLine): void {
    const file = typeof r.file === "string" ? path.relative(this.root, r.file).split(path.sep).join("/") : "";
    const c = (this.files[file] ??= zeroCounts());
    // node names its stand-in result after the file (absolute, or as given on the command line).
    const standIn = r.nesting === 0 && !r.suite && typeof r.file === "string" && path.resolve(this.root, r.name) === r.file;
    if (r.suite) c.suiteFailures += r.ok ? 0 : 1;
    else if (standIn) r.ok ? c.filePassed++ : c.fileFailed++;
    else if (r.skip) c.skipped++;
    else if (r.todo) c.todo++;
    else if (r.ok) c.passed++;
    else {
      c.failed++;
      if (r.cancelled) c.cancelled++;
    }
  }
}

/** True when the runner saw every file through and nothing failed: exit 0, no failure, no crashed file. */
function cleanRun(exitCode: number | null, timedOut: boolean, report: SuiteReport): boolean {
  if (exitCode !== 0 || timedOut || !report.complete) return false;
  return Object.values(report.files).every((c) => c.failed === 0 && c.suiteFailures === 0 && c.fileFailed === 0);
}

export interface SuiteOptions {
  /** Mount the project read-only in the sandbox (the final check: no code may rewrite the tests). Default: false. */
  readOnlyProject?: boolean;
}

type SuiteWorkspace = Pick<Workspace, "root" | "runDir" | "home" | "tmp" | "limits" | "sandbox">;

const emptyReport = (): SuiteReport => ({ complete: false, files: {} });

/**
 * Run `node --test` on the workspace's test files, counted by the reporter above. `passed` is the runner's
 * outcome (exit 0, nothing failed, every file seen through); how many tests a verdict wants is the judge's
 * business (judge.ts). Never throws: a failure to start is a failed run.
 */
export async function runSuite(ws: SuiteWorkspace, opts: SuiteOptions = {}): Promise<SuiteRun> {
  const files = await findTestFiles(ws.root).catch(() => []);
  if (files.length === 0) {
    const output = "No test files found (node --test looks for *.test.js files and test/ folders).";
    return { passed: false, timedOut: false, exitCode: null, tests: 0, output, ms: 0, files, report: emptyReport() };
  }
  return spawnSuite(ws, files, opts);
}

function spawnSuite(ws: SuiteWorkspace, files: string[], opts: SuiteOptions): Promise<SuiteRun> {
  const { testTimeoutMs, maxTestOutputChars, confineTests } = ws.limits;
  const reporters = ["--test-reporter=spec", "--test-reporter-destination=stdout", `--test-reporter=${COUNTING_REPORTER}`, "--test-reporter-destination=stderr"];
  const node = [process.execPath, ...(confineTests ? confinementFlags(ws.runDir) : []), ...guardFlags(), "--test", ...reporters, ...files.map((f) => `./${f}`)];
  const mounts = { writable: ws.runDir, readOnly: opts.readOnlyProject ? [ws.root] : [], cwd: ws.root, resources: ws.limits.resources };
  const cmd = confine(ws.sandbox, mounts, node);
  const started = performance.now();
  const tail = new TailBuffer(maxTestOutputChars);
  const reader = new ReportReader(ws.root, (t) => tail.push(t), maxTestOutputChars);
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const finish = (exitCode: number | null, extra?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const report = reader.end();
      if (extra) tail.push(extra);
      const text = tail.value();
      const run: SuiteRun = {
        passed: cleanRun(exitCode, timedOut, report),
        timedOut,
        exitCode,
        tests: Object.values(report.files).reduce((n, c) => n + testsIn(c), 0),
        output: tail.total > maxTestOutputChars ? `[… ${tail.total - maxTestOutputChars} earlier characters cut]\n${text}` : text,
        ms: Math.round(performance.now() - started),
        files,
        report,
      };
      // The sandbox's cgroup goes before the result: a caller that exits right after leaves none behind.
      void cmd.release().finally(() => resolve(run));
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(cmd.file, cmd.args, {
        cwd: ws.root,
        env: testEnvironment(ws),
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (e) {
      void cmd.release();
      const output = `could not start node --test: ${(e as Error).message}`;
      resolve({ passed: false, timedOut: false, exitCode: null, tests: null, output, ms: 0, files, report: emptyReport() });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, testTimeoutMs);
    child.stdout!.setEncoding("utf8").on("data", (c: string) => tail.push(c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => reader.push(c));
    child.on("error", (e) => finish(null, `\ncould not run node --test: ${e.message}`));
    // When node exits, kill what it left behind (a test may have started background processes holding the pipes);
    // under bwrap the pid namespace dies with its first process, taking detached children along.
    child.on("exit", () => killGroup(child.pid));
    child.on("close", (code) => finish(code));
  });
}

/** The run_tests tool: the suite's outcome as text for the model. */
export async function runTestsTool(ws: Workspace): Promise<ToolOutcome> {
  const r = await runSuite(ws);
  const seconds = (ws.limits.testTimeoutMs / 1000).toString();
  if (r.timedOut) {
    return {
      code: "timeout",
      text: `Error: the tests did not finish within ${seconds} s and were stopped. Output before the stop:\n${r.output}`,
    };
  }
  if (r.passed) return { code: "ok", text: `All tests passed.\n${r.output}` };
  // Exit 0 yet not passed: a file ended (process.exit) before reporting its tests, or the runner did not finish.
  const why = r.exitCode === 0 ? "exit code 0, but a test file ended before reporting its tests" : `exit code ${r.exitCode}`;
  return { code: "tests_failed", text: `Tests failed (${why}).\n${r.output}` };
}
