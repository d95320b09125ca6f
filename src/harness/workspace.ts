// Owns: bench tasks on disk: reading task.json, the per-run folder (a fresh copy of the task's project without
// its solution), restoring the shipped tests before the final check, and removing the folder afterwards.

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fail } from "../errors.js";
import { SANDBOX_DEFAULTS, type SandboxLimits } from "./defaults.js";
import { resolveSandbox, type OsSandbox } from "./os-sandbox.js";
import type { BenchTask } from "./types.js";

/** Folder of a task that holds the reference fix; never copied into a workspace. */
export const SOLUTION_DIR = "solution";
/** The task's metadata file; not part of the project. */
export const TASK_FILE = "task.json";

/** A run's sandbox. Per-run state (bytes written) lives here, never in module state. */
export interface Workspace {
  /** Real path of the project copy the tools act in. */
  root: string;
  /** The run's folder: holds `root`, `home` and `tmp`. Nothing outside it is written. */
  runDir: string;
  /** HOME of the test process. */
  home: string;
  /** TMPDIR of the test process. */
  tmp: string;
  /** The task folder the project was copied from. */
  taskDir: string;
  limits: SandboxLimits;
  /** The OS sandbox the task's code runs in (checked when the workspace was made). */
  sandbox: OsSandbox;
  /** Bytes written so far by write_file. */
  written: number;
}

export interface WorkspaceOptions {
  /** Caps of the tools. Default: SANDBOX_DEFAULTS. */
  limits?: Partial<SandboxLimits>;
  /** Folder the run folder is created in. Default: os.tmpdir(). */
  tmpRoot?: string;
  /** A sandbox already checked (saves the self-check). Default: resolved from `limits.sandbox`. */
  sandbox?: OsSandbox;
}

/** Read and check `task.json` in a task folder. Throws a QtcException (bad caller input) when it is wrong. */
export async function loadTask(taskDir: string): Promise<BenchTask> {
  const dir = path.resolve(taskDir);
  const file = path.join(dir, TASK_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch {
    fail("file_not_found", `no task at ${dir}: ${TASK_FILE} is missing or unreadable`, { path: file });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    fail("invalid_task", `${file} is not valid JSON: ${(e as Error).message}`, { path: file });
  }
  const t = data as Partial<BenchTask> | null;
  const problem =
    typeof t !== "object" || t === null
      ? "it is not an object"
      : typeof t.id !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(t.id)
        ? '"id" must be a kebab-case string'
        : t.id !== path.basename(dir)
          ? `"id" (${t.id}) must equal the folder name (${path.basename(dir)})`
          : typeof t.prompt !== "string" || t.prompt.trim() === "" || /[\r\n]/.test(t.prompt)
            ? '"prompt" must be one non-empty line'
            : !Array.isArray(t.tags) || !t.tags.every((x) => typeof x === "string")
              ? '"tags" must be a list of strings'
              : null;
  if (problem || !t) fail("invalid_task", `${file}: ${problem}`, { path: file });
  return { id: t.id!, prompt: t.prompt!, tags: [...t.tags!], dir };
}

/** Node's default `node --test` file patterns: `*.test.js`, `*-test.js`, `*_test.js`, `test-*.js`, `test.js`, `test/**`. */
export function isTestFile(rel: string): boolean {
  const parts = rel.split(/[\\/]/);
  const base = parts[parts.length - 1]!;
  if (!/\.[cm]?js$/.test(base)) return false;
  if (parts.slice(0, -1).includes("test")) return true;
  return /^(test|test-.+|.+[.\-_]test)\.[cm]?js$/.test(base);
}

/**
 * Copy a folder's files and folders, skipping top-level names in `skip`. Symlinks are copied as links with
 * their targets unchanged (never followed): the sandbox decides at each access whether they stay inside.
 */
export async function copyTree(from: string, to: string, skip: ReadonlySet<string> = new Set()): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) await copyTree(src, dst);
    else if (entry.isFile()) await fs.copyFile(src, dst);
    else if (entry.isSymbolicLink()) await fs.symlink(await fs.readlink(src), dst);
  }
}

/** The project files of a task (relative paths), without task.json and the solution. */
export async function listProjectFiles(taskDir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string, rel: string): Promise<void> {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      if (rel === "" && (entry.name === SOLUTION_DIR || entry.name === TASK_FILE)) continue;
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), r);
      else if (entry.isFile()) out.push(r);
    }
  }
  await walk(taskDir, "");
  return out.sort();
}

/**
 * A fresh run folder `<tmpRoot>/qtc-run-XXXX/` holding `work/` (a copy of the task's project without
 * `solution/` and `task.json`), `home/` and `tmp/`. Throws `sandbox_unavailable` (before creating anything)
 * when the OS sandbox `limits.sandbox` asks for cannot run.
 */
export async function createWorkspace(taskDir: string, opts: WorkspaceOptions = {}): Promise<Workspace> {
  const from = path.resolve(taskDir);
  const stat = await fs.stat(from).catch(() => null);
  if (!stat?.isDirectory()) fail("file_not_found", `task folder not found: ${from}`, { path: from });
  const limits = { ...SANDBOX_DEFAULTS, ...opts.limits };
  const sandbox = opts.sandbox ?? (await resolveSandbox(limits.sandbox));
  const tmpRoot = opts.tmpRoot ?? os.tmpdir();
  await fs.mkdir(tmpRoot, { recursive: true });
  const runDir = await fs.realpath(await fs.mkdtemp(path.join(tmpRoot, "qtc-run-")));
  const root = path.join(runDir, "work");
  const home = path.join(runDir, "home");
  const tmp = path.join(runDir, "tmp");
  await copyTree(from, root, new Set([SOLUTION_DIR, TASK_FILE]));
  await fs.mkdir(home);
  await fs.mkdir(tmp);
  return { root, runDir, home, tmp, taskDir: from, limits, sandbox, written: 0 };
}

/**
 * Put the task's shipped test files back (the model may have rewritten them), so the final check judges the
 * code against the tests the task was written with. Symlinks the model left at those paths are replaced.
 */
export async function restoreTests(ws: Workspace): Promise<void> {
  for (const rel of await listProjectFiles(ws.taskDir)) {
    if (!isTestFile(rel)) continue;
    const parts = rel.split("/");
    let dir = ws.root;
    for (const part of parts.slice(0, -1)) {
      dir = path.join(dir, part);
      const st = await fs.lstat(dir).catch(() => null);
      if (st && !st.isDirectory()) await fs.rm(dir, { force: true }); // a symlink or file: remove it, never its target
      if (!st || !st.isDirectory()) await fs.mkdir(dir);
    }
    const dst = path.join(dir, parts[parts.length - 1]!);
    await fs.rm(dst, { recursive: true, force: true });
    await fs.copyFile(path.join(ws.taskDir, rel), dst);
  }
}

/** Overlay the task's `solution/` onto a workspace (used by the tasks check, never by an agent run). */
export async function applySolution(ws: Workspace): Promise<void> {
  await copyTree(path.join(ws.taskDir, SOLUTION_DIR), ws.root);
}

/** Remove the run folder. Never throws. */
export async function removeWorkspace(ws: Workspace): Promise<void> {
  await fs.rm(ws.runDir, { recursive: true, force: true }).catch(() => undefined);
}
