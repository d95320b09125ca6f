// Owns: the OS sandbox that confines every process the task's code starts (bubblewrap): finding `bwrap`, its
// self-check, and the command line that gives a run no network, a minimal read-only root, a private sized /tmp,
// its run folder as the only writable place, a pid namespace that dies with the run, and resource limits
// (memory, processes, file size, open files; `prlimit` inside the sandbox).

import { execFile } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fail } from "../errors.js";
import { inCgroup, makeSandboxCgroup } from "./sandbox-cgroup.js";

/** How the task's code is confined: `bwrap` (bubblewrap; required by default) or `off` (unconfined, explicit). */
export type SandboxMode = "bwrap" | "off";

/** A sandbox that passed its self-check, or the operator's explicit choice of none. */
export type OsSandbox = { kind: "bwrap"; bwrap: string } | { kind: "off" };

/** What one sandboxed command may touch. */
export interface SandboxMounts {
  /** Bound read-write at the same path (the run folder). */
  writable: string;
  /** Bound read-only over `writable`'s subtree (the judged project), after it. Default: none. */
  readOnly?: string[];
  /** Working directory inside. */
  cwd: string;
  /** Resource limits of every process inside. Default: RESOURCE_DEFAULTS. */
  resources?: ResourceLimits;
}

/**
 * What each process in the sandbox may use, set as rlimits by `prlimit` before the command starts and
 * inherited by every process it starts; the sandbox's /tmp is a tmpfs of `tmpBytes`.
 */
export interface ResourceLimits {
  /**
   * Bytes of private writable memory one process may map (RLIMIT_DATA: heap and anonymous mappings; V8's
   * address-space reservations do not count, so Node starts). An allocation past it fails. Default: 1 GiB.
   */
  memoryBytes: number;
  /**
   * Processes (threads included) the sandbox's user may have at once (RLIMIT_NPROC, counted in the sandbox's
   * own user namespace; a Node process has about ten threads). The kernel does not enforce it for a process
   * whose real user is root on the host: there only the sandbox's cgroup (see totalMemoryBytes) bounds them. Default: 512.
   */
  processes: number;
  /** Bytes one file may grow to (RLIMIT_FSIZE); a write past it fails (SIGXFSZ ends the writer). Default: 64 MiB. */
  fileBytes: number;
  /** Open files per process (RLIMIT_NOFILE). Default: 1024. */
  openFiles: number;
  /** Size of the sandbox's /tmp, a tmpfs in memory. Default: 64 MiB. */
  tmpBytes: number;
  /**
   * Bytes of memory all the sandbox's processes may use together, its /tmp included, where a cgroup can be
   * made for it (sandbox-cgroup.ts); there `processes` also caps the sandbox's tasks as a whole, root or not.
   * Default: 2 GiB.
   */
  totalMemoryBytes: number;
}

export const RESOURCE_DEFAULTS: Readonly<ResourceLimits> = Object.freeze({
  memoryBytes: 1 << 30,
  processes: 512,
  fileBytes: 64 << 20,
  openFiles: 1024,
  tmpBytes: 64 << 20,
  totalMemoryBytes: 2 << 30,
});

/** Top-level system folders bound read-only (or recreated as the symlinks they are on merged-/usr systems). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * The few /etc entries a Node process and a shell need (dynamic loader, Debian's alternatives, time zone,
 * `localhost`). Everything else of /etc (passwd, shadow, credentials, configuration) stays out.
 */
const ETC_ENTRIES = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime", "/etc/hosts", "/etc/nsswitch.conf"];

/** The qtc package itself (source, dist, node_modules): hidden even where it lies under a bound system folder. */
const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const SELF_CHECK_TIMEOUT_MS = 10_000;

/** `name` on PATH (absolute folders only); null when absent. */
function findOnPath(name: string, envPath: string): string | null {
  for (const dir of envPath.split(path.delimiter).filter((d) => path.isAbsolute(d))) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** `bwrap` on PATH (absolute folders only); null when absent. */
export function findBwrap(envPath = process.env.PATH ?? ""): string | null {
  return findOnPath("bwrap", envPath);
}

/** util-linux's `prlimit`, which sets the limits inside the sandbox; looked for in the system folders bound there. */
export function findPrlimit(): string | null {
  return findOnPath("prlimit", "/usr/bin:/bin:/usr/sbin:/sbin");
}

const HOW_TO_FIX =
  "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or allow an unconfined run explicitly: " +
  '`--unsafe-no-sandbox` on the command line, `limits: { sandbox: "off" }` in the library (the model\'s code can ' +
  "then read, write and connect wherever this user can).";

/**
 * The sandbox for `mode`, checked by running `node --version` inside it (`bwrap`: the executable; default: found
 * on PATH). Throws a QtcException `sandbox_unavailable` when bwrap is missing or fails its self-check: a run is
 * refused, never silently run unconfined.
 */
export async function resolveSandbox(mode: SandboxMode, bwrap: string | null = findBwrap()): Promise<OsSandbox> {
  if (mode === "off") return { kind: "off" };
  if (!bwrap) fail("sandbox_unavailable", `no OS sandbox to run the task's code in: bwrap (bubblewrap) is not installed. ${HOW_TO_FIX}`, { exitCode: 1 });
  if (!findPrlimit()) fail("sandbox_unavailable", `no OS sandbox to run the task's code in: prlimit (util-linux), which sets its resource limits, is not in /usr/bin or /bin. ${HOW_TO_FIX}`, { exitCode: 1 });
  const problem = await selfCheck(bwrap);
  if (problem !== null) {
    fail("sandbox_unavailable", `no OS sandbox to run the task's code in: ${bwrap} failed its self-check (${problem}). ${HOW_TO_FIX}`, { exitCode: 1 });
  }
  return { kind: "bwrap", bwrap };
}

/** Null when Node runs inside the sandbox and prints its version; else what went wrong, in one line. */
function selfCheck(bwrap: string): Promise<string | null> {
  const args = sandboxArgs({ writable: "", cwd: "/" }, [process.execPath, "--version"]);
  return new Promise((resolve) => {
    execFile(bwrap, args, { timeout: SELF_CHECK_TIMEOUT_MS, env: { PATH: "/usr/bin:/bin" } }, (e, stdout, stderr) => {
      if (e) resolve((stderr.trim() || e.message).split("\n")[0]!);
      else resolve(stdout.trim() === process.version ? null : `node inside it printed ${JSON.stringify(stdout.trim().slice(0, 80))}, not ${process.version}`);
    });
  });
}

/** True when `dir` is `base` or lies under it. */
const under = (base: string, dir: string): boolean => dir === base || dir.startsWith(base.endsWith("/") ? base : `${base}/`);

/** Mounts of the read-only root: system folders, a few /etc entries, and Node's own install folder. */
function rootMounts(): string[] {
  const args: string[] = [];
  const bound: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const st = lstatOrNull(dir);
    if (!st) continue;
    if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (st.isDirectory()) {
      args.push("--ro-bind", dir, dir);
      bound.push(dir);
    }
  }
  for (const entry of ETC_ENTRIES) args.push("--ro-bind-try", entry, entry);
  // Node may live outside /usr (nvm, a tarball under /opt or a home folder): bind its install prefix alone.
  const nodePrefix = nodePrefixOf(process.execPath);
  if (!bound.some((b) => under(b, nodePrefix))) {
    args.push("--ro-bind", nodePrefix, nodePrefix);
    bound.push(nodePrefix);
  }
  if (bound.some((b) => under(b, PACKAGE_ROOT)) && !under(PACKAGE_ROOT, nodePrefix)) {
    args.push("--tmpfs", PACKAGE_ROOT);
  }
  return args;
}

/** The install prefix of the Node binary at `execPath` (the folder above its bin/). */
export function nodePrefixOf(execPath: string): string {
  const nodeDir = path.dirname(realpathSync(execPath));
  return path.dirname(nodeDir) === "/" ? nodeDir : path.dirname(nodeDir);
}

/**
 * Mounts that must come after the sandbox's private /tmp: a Node installed under /tmp (a CI cache in a clone
 * there) would otherwise be hidden by the tmpfs, and no process could start.
 */
export function mountsAfterTmp(nodePrefix: string): string[] {
  return under("/tmp", nodePrefix) ? ["--ro-bind", nodePrefix, nodePrefix] : [];
}

function lstatOrNull(p: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** The `prlimit` command line that starts `command` under `r` (soft and hard limits alike; no core files). */
function limited(r: ResourceLimits, command: string[]): string[] {
  const prlimit = findPrlimit();
  if (!prlimit) fail("sandbox_unavailable", `prlimit (util-linux) is not in /usr/bin or /bin. ${HOW_TO_FIX}`, { exitCode: 1 });
  return [prlimit, `--data=${r.memoryBytes}`, `--nproc=${r.processes}`, `--fsize=${r.fileBytes}`, `--nofile=${r.openFiles}`, "--core=0", "--", ...command];
}

/**
 * The bwrap command line for `command`. The new root holds only the read-only mounts above, a minimal /dev, a
 * /proc of the new pid namespace and an empty /tmp of `tmpBytes`; the run folder is the one writable place.
 * Every namespace is unshared (no network: only a loopback of its own), all capabilities are dropped, the
 * command runs under the resource limits, and the sandbox's processes die when bwrap does
 * (`--die-with-parent`), which is how a timeout kills the whole tree.
 */
export function sandboxArgs(m: SandboxMounts, command: string[]): string[] {
  const r = m.resources ?? RESOURCE_DEFAULTS;
  const args = [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    ...rootMounts(),
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--size",
    String(r.tmpBytes),
    "--tmpfs",
    "/tmp",
    ...mountsAfterTmp(nodePrefixOf(process.execPath)),
  ];
  if (m.writable) args.push("--bind", m.writable, m.writable);
  for (const dir of m.readOnly ?? []) args.push("--ro-bind", dir, dir);
  args.push("--chdir", m.cwd, "--", ...limited(r, command));
  return args;
}

/** A command ready to spawn, and what to undo once it has ended (its cgroup). */
export interface ConfinedCommand {
  file: string;
  args: string[];
  /** Call when the command has ended. */
  release(): Promise<void>;
}

/**
 * The executable and arguments that run `command` under `sb` (unchanged when the sandbox is off): bwrap
 * with the limits, inside a cgroup of its own where one can be made.
 */
export function confine(sb: OsSandbox, m: SandboxMounts, command: string[]): ConfinedCommand {
  if (sb.kind === "off") return { file: command[0]!, args: command.slice(1), release: async () => {} };
  const r = m.resources ?? RESOURCE_DEFAULTS;
  const args = sandboxArgs(m, command);
  const cg = makeSandboxCgroup({ tasks: r.processes, memoryBytes: r.totalMemoryBytes });
  if (cg === null) return { file: sb.bwrap, args, release: async () => {} };
  return { ...inCgroup(cg, [sb.bwrap, ...args]), release: () => cg.remove() };
}
