// Owns: running a workspace's `node --test` suite: test files found without following links out, a minimal
// environment, the OS sandbox (and Node's permission model inside it), a timeout that kills the whole process
// tree, and a capped, tail-kept output. Used by the run_tests tool, the final check and tasks:check.

import { spawn } from "node:child_process";
import path from "node:path";
import { confine } from "./os-sandbox.js";
import { walkInside } from "./sandbox.js";
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

export interface SuiteOptions {
  /** Mount the project read-only in the sandbox (the final check: no code may rewrite the tests). Default: false. */
  readOnlyProject?: boolean;
}

type SuiteWorkspace = Pick<Workspace, "root" | "runDir" | "home" | "tmp" | "limits" | "sandbox">;

/** Run `node --test` on the workspace's test files. Never throws: a failure to start is a failed run. */
export async function runSuite(ws: SuiteWorkspace, opts: SuiteOptions = {}): Promise<TestRunRecord> {
  const files = await findTestFiles(ws.root).catch(() => []);
  if (files.length === 0) {
    return { passed: false, timedOut: false, exitCode: null, tests: 0, output: "No test files found (node --test looks for *.test.js files and test/ folders).", ms: 0 };
  }
  return spawnSuite(ws, files, opts);
}

function spawnSuite(ws: SuiteWorkspace, files: string[], opts: SuiteOptions): Promise<TestRunRecord> {
  const { testTimeoutMs, maxTestOutputChars, confineTests } = ws.limits;
  const node = [process.execPath, ...(confineTests ? confinementFlags(ws.runDir) : []), "--test", "--test-reporter=spec", ...files.map((f) => `./${f}`)];
  const cmd = confine(ws.sandbox, { writable: ws.runDir, readOnly: opts.readOnlyProject ? [ws.root] : [], cwd: ws.root }, node);
  const started = performance.now();
  const tail = new TailBuffer(maxTestOutputChars);
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const finish = (exitCode: number | null, extra?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (extra) tail.push(extra);
      const text = tail.value();
      const counted = /^\S* ?tests (\d+)$/m.exec(text);
      resolve({
        passed: exitCode === 0 && !timedOut,
        timedOut,
        exitCode,
        tests: counted ? Number(counted[1]) : null,
        output: tail.total > maxTestOutputChars ? `[… ${tail.total - maxTestOutputChars} earlier characters cut]\n${text}` : text,
        ms: Math.round(performance.now() - started),
      });
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
      resolve({ passed: false, timedOut: false, exitCode: null, tests: null, output: `could not start node --test: ${(e as Error).message}`, ms: 0 });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, testTimeoutMs);
    child.stdout!.setEncoding("utf8").on("data", (c: string) => tail.push(c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => tail.push(c));
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
  return { code: "tests_failed", text: `Tests failed (exit code ${r.exitCode}).\n${r.output}` };
}
