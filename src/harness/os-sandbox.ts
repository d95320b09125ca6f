// Owns: the OS sandbox that confines every process the task's code starts (bubblewrap): finding `bwrap`, its
// self-check, and the command line that gives a run no network, a minimal read-only root, a private /tmp, its
// run folder as the only writable place, and a pid namespace that dies with the run.

import { execFile } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fail } from "../errors.js";

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
}

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

/** `bwrap` on PATH (absolute folders only); null when absent. */
export function findBwrap(envPath = process.env.PATH ?? ""): string | null {
  for (const dir of envPath.split(path.delimiter).filter((d) => path.isAbsolute(d))) {
    const candidate = path.join(dir, "bwrap");
    if (existsSync(candidate)) return candidate;
  }
  return null;
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
  const nodeDir = path.dirname(realpathSync(process.execPath));
  const nodePrefix = path.dirname(nodeDir) === "/" ? nodeDir : path.dirname(nodeDir);
  if (!bound.some((b) => under(b, nodePrefix))) {
    args.push("--ro-bind", nodePrefix, nodePrefix);
    bound.push(nodePrefix);
  }
  if (bound.some((b) => under(b, PACKAGE_ROOT)) && !under(PACKAGE_ROOT, nodePrefix)) {
    args.push("--tmpfs", PACKAGE_ROOT);
  }
  return args;
}

function lstatOrNull(p: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * The bwrap command line for `command`. The new root holds only the read-only mounts above, a minimal /dev, a
 * /proc of the new pid namespace and an empty /tmp; the run folder is the one writable place. Every namespace
 * is unshared (no network: only a loopback of its own), all capabilities are dropped, and the sandbox's
 * processes die when bwrap does (`--die-with-parent`), which is how a timeout kills the whole tree.
 */
export function sandboxArgs(m: SandboxMounts, command: string[]): string[] {
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
    "--tmpfs",
    "/tmp",
  ];
  if (m.writable) args.push("--bind", m.writable, m.writable);
  for (const dir of m.readOnly ?? []) args.push("--ro-bind", dir, dir);
  args.push("--chdir", m.cwd, "--", ...command);
  return args;
}

/** The executable and arguments that run `command` under `sb` (unchanged when the sandbox is off). */
export function confine(sb: OsSandbox, m: SandboxMounts, command: string[]): { file: string; args: string[] } {
  if (sb.kind === "off") return { file: command[0]!, args: command.slice(1) };
  return { file: sb.bwrap, args: sandboxArgs(m, command) };
}
