// Owns: running a workspace's test suite: test files found without following links out, each in a `node` of
// its own with a minimal environment, the OS sandbox (and Node's permission model inside it), a timeout that
// kills the whole process tree, a capped, tail-kept output, and the per-file test counts read from that
// process's signed report (signed-report.ts). Used by the run_tests tool, the final check and tasks:check.

import { spawn } from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";
import { confine } from "./os-sandbox.js";
import { walkInside } from "./sandbox.js";
import { entrySource, newReportKey, REPORT_FD, SIGNED_REPORTER, SignedReportReader, type SignedFileReport } from "./signed-report.js";
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
 * Node flags that confine each test file's process to the run folder: reads and writes there only, no
 * workers, no addons, no inspector, no `process.binding` (the signed report relies on the last two). Empty
 * when this Node has no permission model.
 */
export function confinementFlags(runDir: string): string[] {
  const flags = process.allowedNodeEnvironmentFlags;
  const permission = flags.has("--permission") ? "--permission" : flags.has("--experimental-permission") ? "--experimental-permission" : null;
  if (!permission) return [];
  // A task's tests may start processes of their own (a CLI under test); the OS sandbox bounds them.
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
  /** 1 when the file ran through, exit 0, with no test of its own (a helper under test/); else 0. */
  filePassed: number;
  /** 1 when the file did not run through (it crashed, exited early, or its import failed); else 0. */
  fileFailed: number;
}

/** The counts of a suite run, by test file (relative to the project). */
export interface SuiteReport {
  /** Every file ran and every line of every file's report verified (signed, in sequence, none after the end). */
  complete: boolean;
  files: Record<string, FileCounts>;
}

/** A suite run: the record, the test files it ran, and the counts. */
export interface SuiteRun extends TestRunRecord {
  files: string[];
  report: SuiteReport;
}

const zeroCounts = (): FileCounts => ({ passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, suiteFailures: 0, filePassed: 0, fileFailed: 0 });

/** Tests the runner reported in a file (passed, failed, skipped, todo); not node's stand-in for the file. */
export const testsIn = (c: FileCounts): number => c.passed + c.failed + c.skipped + c.todo;

/**
 * The counts of one test file's process from its verified report. A file that did not run through (no signed
 * end line, its import unfinished, or a non-zero exit with no failed test to show for it) is one failed file;
 * a file that ran through with no test of its own (a helper under test/) is one passed file.
 */
export function fileCounts(report: SignedFileReport, exitCode: number | null): FileCounts {
  const c = zeroCounts();
  for (const r of report.results) {
    if (r.suite) c.suiteFailures += r.ok ? 0 : 1;
    else if (r.skip) c.skipped++;
    else if (r.todo) c.todo++;
    else if (r.ok) c.passed++;
    else {
      c.failed++;
      if (r.cancelled) c.cancelled++;
    }
  }
  const through = report.ended && report.loaded && !report.untrusted;
  if (!through || (exitCode !== 0 && c.failed === 0 && c.suiteFailures === 0)) c.fileFailed = 1;
  else if (testsIn(c) === 0 && exitCode === 0) c.filePassed = 1;
  return c;
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
 * Run the workspace's test files, each in a `node` of its own (one after another, under one timeout for the
 * suite), counted from its signed report. `passed` is the suite's outcome (every exit 0, nothing failed, every
 * file seen through, every report verified); how many tests a verdict wants is the judge's business
 * (judge.ts). Never throws: a failure to start is a failed run.
 */
export async function runSuite(ws: SuiteWorkspace, opts: SuiteOptions = {}): Promise<SuiteRun> {
  const files = await findTestFiles(ws.root).catch(() => []);
  if (files.length === 0) {
    const output = "No test files found (node --test looks for *.test.js files and test/ folders).";
    return { passed: false, timedOut: false, exitCode: null, tests: 0, output, ms: 0, files, report: emptyReport() };
  }
  const started = performance.now();
  const deadline = started + ws.limits.testTimeoutMs;
  const tail = new TailBuffer(ws.limits.maxTestOutputChars);
  const report: SuiteReport = { complete: true, files: {} };
  let exitCode: number | null = 0;
  let timedOut = false;
  for (const file of files) {
    // Each file's header tells the model which file the output below comes from.
    if (files.length > 1) tail.push(`# ${file}\n`);
    const one = await runFile(ws, file, opts, deadline, tail);
    report.files[file] = fileCounts(one.report, one.exitCode);
    if (one.report.untrusted) report.complete = false;
    if (one.exitCode !== 0 && exitCode === 0) exitCode = one.exitCode;
    if (one.timedOut || one.startError) {
      timedOut ||= one.timedOut;
      if (one.startError) tail.push(`\n${one.startError}`);
      report.complete = false;
      break;
    }
  }
  const run: SuiteRun = {
    passed: false,
    timedOut,
    exitCode: timedOut ? null : exitCode,
    tests: Object.values(report.files).reduce((n, c) => n + testsIn(c), 0),
    output: outputOf(tail, ws.limits.maxTestOutputChars),
    ms: Math.round(performance.now() - started),
    files,
    report,
  };
  run.passed = report.complete && Object.keys(report.files).length === files.length && cleanRun(run.exitCode, timedOut, report);
  return run;
}

function outputOf(tail: TailBuffer, max: number): string {
  const text = tail.value();
  return tail.total > max ? `[… ${tail.total - max} earlier characters cut]\n${text}` : text;
}

/** One test file's process: how it exited and what its reporter signed. */
interface FileRun {
  exitCode: number | null;
  timedOut: boolean;
  startError: string | null;
  report: SignedFileReport;
}

/**
 * The command line of one test file's process: the confinement flags, the guard, the signed reporter and the
 * readable spec one (both to stdout; the signed one writes its lines to its own descriptor instead), and the
 * entry that imports the file.
 */
function fileCommand(ws: SuiteWorkspace, file: string): string[] {
  const reporters = [`--test-reporter=${SIGNED_REPORTER}`, "--test-reporter-destination=stdout", "--test-reporter=spec", "--test-reporter-destination=stdout"];
  const confinement = ws.limits.confineTests ? confinementFlags(ws.runDir) : [];
  return [process.execPath, ...confinement, ...guardFlags(), ...reporters, "--input-type=module", "--eval", entrySource(path.join(ws.root, file))];
}

function runFile(ws: SuiteWorkspace, file: string, opts: SuiteOptions, deadline: number, tail: TailBuffer): Promise<FileRun> {
  const mounts = { writable: ws.runDir, readOnly: opts.readOnlyProject ? [ws.root] : [], cwd: ws.root, resources: ws.limits.resources };
  const cmd = confine(ws.sandbox, mounts, fileCommand(ws, file));
  const { key, stdin } = newReportKey();
  const reader = new SignedReportReader(key, ws.limits.maxTestOutputChars + 4096);
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const finish = (exitCode: number | null, startError: string | null = null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const run: FileRun = { exitCode, timedOut, startError, report: reader.end() };
      // The sandbox's cgroup goes before the result: a caller that exits right after leaves none behind.
      void cmd.release().finally(() => resolve(run));
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(cmd.file, cmd.args, { cwd: ws.root, env: testEnvironment(ws), detached: true, stdio: ["pipe", "pipe", "pipe", "pipe"] });
    } catch (e) {
      void cmd.release();
      resolve({ exitCode: null, timedOut: false, startError: `could not start node: ${(e as Error).message}`, report: reader.end() });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, Math.max(0, deadline - performance.now()));
    // The key goes in before anything of the run can read stdin; the reporter closes it after reading.
    child.stdin!.on("error", () => {});
    child.stdin!.end(stdin);
    child.stdout!.setEncoding("utf8").on("data", (c: string) => tail.push(c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => tail.push(c));
    const channel = child.stdio[REPORT_FD] as Readable;
    channel.setEncoding("latin1").on("data", (c: string) => reader.push(c));
    child.on("error", (e) => finish(null, `could not run node: ${e.message}`));
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
