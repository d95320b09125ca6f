// Owns: the cgroup of one sandboxed command, where this process may make one (cgroup v1's pids and memory
// hierarchies, or v2 with those controllers delegated): a cap on the tasks and on the memory of the whole
// sandbox together, made before the command starts, joined by a shell that then execs it, removed after.

import { existsSync, mkdirSync, promises as fs, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const CGROUP_FS = "/sys/fs/cgroup";

/** What the whole sandbox may use together. */
export interface CgroupCaps {
  /** Tasks (processes and threads). */
  tasks: number;
  /** Bytes of memory (page cache and its /tmp included). */
  memoryBytes: number;
}

/** A made cgroup: the folders to join, and how to remove them once the command has ended. */
export interface SandboxCgroup {
  dirs: string[];
  remove(): Promise<void>;
}

/** Where this process's own cgroups are: v1 controller -> folder, or the v2 folder. */
function ownCgroups(): { v1: Map<string, string>; v2: string | null } {
  const v1 = new Map<string, string>();
  let v2: string | null = null;
  let text = "";
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return { v1, v2 };
  }
  for (const line of text.split("\n")) {
    const m = /^\d+:([^:]*):(\/.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === "") {
      if (existsSync(path.join(CGROUP_FS, "cgroup.controllers"))) v2 = path.join(CGROUP_FS, m[2]!);
      continue;
    }
    for (const c of m[1]!.split(",")) v1.set(c, path.join(CGROUP_FS, c, m[2]!));
  }
  return { v1, v2 };
}

/** Make `dir` and write its limit files; false (and nothing left behind) where that is not allowed. */
function make(dir: string, files: Record<string, string>): boolean {
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  try {
    for (const [name, value] of Object.entries(files)) writeFileSync(path.join(dir, name), value);
    return true;
  } catch {
    removeDir(dir);
    return false;
  }
}

/** rmdir, retried briefly: a cgroup stays busy until its last task has been reaped. */
async function removeLater(dir: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await fs.rmdir(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** rmdir of a cgroup that never held a task. */
function removeDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // left behind: empty, and named after this process
  }
}

/**
 * A fresh cgroup (or one per v1 hierarchy) capped at `caps`, or null where this process may not make one (no
 * cgroup file system, or not delegated to this user): the rlimits are then the only bound (docs/security.md).
 */
export function makeSandboxCgroup(caps: CgroupCaps): SandboxCgroup | null {
  const { v1, v2 } = ownCgroups();
  const name = `qtc-sandbox-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const dirs: string[] = [];
  if (v2 !== null) {
    const delegated = (() => {
      try {
        return readFileSync(path.join(v2, "cgroup.subtree_control"), "utf8").split(/\s+/);
      } catch {
        return [];
      }
    })();
    const files: Record<string, string> = {};
    if (delegated.includes("pids")) files["pids.max"] = String(caps.tasks);
    if (delegated.includes("memory")) files["memory.max"] = String(caps.memoryBytes);
    if (Object.keys(files).length > 0 && make(path.join(v2, name), files)) dirs.push(path.join(v2, name));
  }
  if (dirs.length === 0) {
    const pids = v1.get("pids");
    const memory = v1.get("memory");
    if (pids && make(path.join(pids, name), { "pids.max": String(caps.tasks) })) dirs.push(path.join(pids, name));
    if (memory && make(path.join(memory, name), { "memory.limit_in_bytes": String(caps.memoryBytes) })) dirs.push(path.join(memory, name));
  }
  if (dirs.length === 0) return null;
  return { dirs, remove: async () => void (await Promise.all(dirs.map(removeLater))) };
}

/** Joins the shell to each cgroup (its children inherit them), then execs the command. */
const JOIN = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" 2>/dev/null; shift; n=$((n-1)); done; exec "$@"';

/** `command` started inside the cgroup's folders. */
export function inCgroup(cg: SandboxCgroup, command: string[]): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", JOIN, "qtc-sandbox", String(cg.dirs.length), ...cg.dirs, ...command] };
}
