// Owns: path containment for the sandboxed tools: a model-given path is turned into a real path inside the
// workspace, or refused with an outcome the model can read (absolute, `..`, symlinks that lead out), and
// opened without a race: component by component from a directory handle, never by the whole path again.

import { constants, promises as fs } from "node:fs";
import path from "node:path";
import type { ToolOutcome } from "./types.js";

export type Resolved =
  | {
      ok: true;
      /** Real path inside the workspace (symlinks resolved). */
      real: string;
      /** The path relative to the workspace root, `/`-separated ("." for the root). */
      rel: string;
      /** What is there now: a file, a folder, or nothing (for writes). */
      kind: "file" | "dir" | "missing" | "other";
    }
  | { ok: false; outcome: ToolOutcome };

const refuse = (code: ToolOutcome["code"], text: string): Resolved => ({ ok: false, outcome: { code, text } });

/** True when `real` is `root` or lies under it. Both must be real (resolved) paths. */
export function isInside(root: string, real: string): boolean {
  if (real === root) return true;
  const rel = path.relative(root, real);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

/**
 * Check a model-given path syntactically: relative, no `..`, no NUL. Returns its segments (empty for the
 * root) or a refusal.
 */
export function splitPath(given: string): { ok: true; segments: string[] } | { ok: false; outcome: ToolOutcome } {
  if (typeof given !== "string" || given.trim() === "") {
    return { ok: false, outcome: { code: "invalid_path", text: 'Error: the path is empty; use "." for the project root.' } };
  }
  if (given.includes("\0")) {
    return { ok: false, outcome: { code: "invalid_path", text: "Error: the path contains a NUL character." } };
  }
  const p = given.trim();
  if (path.isAbsolute(p) || /^[\\/]/.test(p) || /^[A-Za-z]:/.test(p) || p.startsWith("~")) {
    return {
      ok: false,
      outcome: {
        code: "absolute_path",
        text: `Error: "${p}" is an absolute path; only paths relative to the project root are allowed (e.g. "src/index.js").`,
      },
    };
  }
  const segments = p.split(/[\\/]+/).filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) {
    return {
      ok: false,
      outcome: { code: "parent_path", text: `Error: "${p}" contains "..": paths may not leave the project folder.` },
    };
  }
  return { ok: true, segments };
}

/**
 * Resolve a model-given path inside the workspace root, following symlinks and checking after every step
 * that the real path stays inside. A missing tail is allowed (for writes): `kind` is then "missing" and
 * `real` is where the file would be created. A broken symlink on the way is refused.
 */
export async function resolveInside(root: string, given: string): Promise<Resolved> {
  const split = splitPath(given);
  if (!split.ok) return split;
  const { segments } = split;
  const rel = segments.length ? segments.join("/") : ".";
  let real = root;
  for (let i = 0; i < segments.length; i++) {
    const candidate = path.join(real, segments[i]!);
    const st = await fs.lstat(candidate).catch((e: NodeJS.ErrnoException) => e);
    if (st instanceof Error) {
      if (st.code === "ENOENT") return { ok: true, real: path.join(real, ...segments.slice(i)), rel, kind: "missing" };
      if (st.code === "ENOTDIR") {
        return refuse("not_a_directory", `Error: "${segments.slice(0, i).join("/")}" is a file, not a folder.`);
      }
      return refuse("io_error", `Error: cannot access "${rel}": ${st.code ?? st.message}.`);
    }
    if (st.isSymbolicLink()) {
      const target = await fs.realpath(candidate).catch(() => null);
      if (target === null) {
        return refuse(
          "outside_workspace",
          `Error: "${segments.slice(0, i + 1).join("/")}" is a symlink that leads nowhere (or outside the project); it cannot be used.`,
        );
      }
      if (!isInside(root, target)) {
        return refuse(
          "outside_workspace",
          `Error: "${segments.slice(0, i + 1).join("/")}" is a symlink that points outside the project folder; access refused.`,
        );
      }
      real = target;
    } else {
      real = candidate;
    }
    if (i < segments.length - 1) {
      const dst = await fs.stat(real).catch(() => null);
      if (dst && !dst.isDirectory()) {
        return refuse("not_a_directory", `Error: "${segments.slice(0, i + 1).join("/")}" is a file, not a folder.`);
      }
    }
  }
  const st = await fs.stat(real).catch(() => null);
  const kind = !st ? "missing" : st.isFile() ? "file" : st.isDirectory() ? "dir" : "other";
  return { ok: true, real, rel, kind };
}

/** Folders listing, searching and test discovery do not enter. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(["node_modules", ".git"]);

export interface WalkEntry {
  /** Path shown to the model (relative to the project root). */
  rel: string;
  /** Real path (files and folders only). */
  real: string;
  kind: "file" | "dir" | "link-inside" | "link-outside" | "skipped-dir";
}

/**
 * Walk a folder in sorted order without following symlinked folders (no cycles, no escapes). A symlinked
 * file is yielded as a file only when its real path is inside the workspace.
 */
export async function* walkInside(root: string, dirReal: string, dirRel: string): AsyncGenerator<WalkEntry> {
  const entries = await fs.readdir(dirReal, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const rel = dirRel === "." ? e.name : `${dirRel}/${e.name}`;
    const real = path.join(dirReal, e.name);
    if (e.isSymbolicLink()) {
      const target = await fs.realpath(real).catch(() => null);
      const st = target && isInside(root, target) ? await fs.stat(target).catch(() => null) : null;
      if (target && st?.isFile()) yield { rel, real: target, kind: "file" };
      else yield { rel, real, kind: target && isInside(root, target) ? "link-inside" : "link-outside" };
    } else if (e.isDirectory()) {
      if (SKIPPED_DIRS.has(e.name)) {
        yield { rel, real, kind: "skipped-dir" };
        continue;
      }
      yield { rel, real, kind: "dir" };
      yield* walkInside(root, real, rel);
    } else if (e.isFile()) {
      yield { rel, real, kind: "file" };
    }
  }
}

export type Opened = { ok: true; handle: fs.FileHandle } | { ok: false; outcome: ToolOutcome };

/** `/proc/self/fd/N/name` is openat(N, name): the lookup starts at the directory the handle holds. */
const FD_DIR = "/proc/self/fd";
const at = (dir: fs.FileHandle, name: string): string => `${FD_DIR}/${dir.fd}/${name}`;

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Open `real` (a path inside `root` without symlinks, as resolveInside returns it) for reading or writing,
 * so that no swap of a folder for a symlink meanwhile can make it land outside. Check-then-open on the whole
 * path is racy, and O_NOFOLLOW guards only the last component. Here the root is opened once and each further
 * component is looked up in the directory handle of the one before, with O_NOFOLLOW: a component that became
 * a symlink fails with ELOOP instead of being followed, and a handle keeps naming the folder it was opened on
 * even if that folder's path is swapped. For writes, missing folders are made the same way (mkdirat). The
 * opened file's real path is checked once more before the handle is returned. Linux only (/proc); elsewhere
 * the whole path is opened with O_NOFOLLOW, which is racy (documented in docs/security.md).
 */
export async function openInside(root: string, real: string, mode: "read" | "write"): Promise<Opened> {
  const rel = path.relative(root, real);
  if (rel === "" || !isInside(root, real)) return refuseOpen("outside_workspace", `Error: "${rel}" is outside the project folder.`);
  const fileFlags =
    (mode === "read" ? constants.O_RDONLY : constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC) | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  if (process.platform !== "linux") return openedFile(root, rel, await fs.open(real, fileFlags, 0o644).catch((e: NodeJS.ErrnoException) => e));
  const parts = rel.split(path.sep);
  let dir: fs.FileHandle | null = null;
  try {
    const opened = await fs.open(root, DIR_FLAGS).catch((e: NodeJS.ErrnoException) => e);
    if (opened instanceof Error) return openFailure(rel, opened);
    dir = opened;
    if ((await fs.readlink(`${FD_DIR}/${dir.fd}`)) !== root) return refuseOpen("outside_workspace", `Error: the project folder changed while "${rel}" was opened; try again.`);
    for (const part of parts.slice(0, -1)) {
      if (mode === "write") await fs.mkdir(at(dir, part)).catch(() => undefined);
      const next: fs.FileHandle | NodeJS.ErrnoException = await fs.open(at(dir, part), DIR_FLAGS).catch((e: NodeJS.ErrnoException) => e);
      if (next instanceof Error) return openFailure(rel, next);
      await dir.close();
      dir = next;
    }
    return await openedFile(root, rel, await fs.open(at(dir, parts[parts.length - 1]!), fileFlags, 0o644).catch((e: NodeJS.ErrnoException) => e));
  } finally {
    await dir?.close().catch(() => undefined);
  }
}

/** Accept an opened file only when it is a regular file whose real path is inside the root. */
async function openedFile(root: string, rel: string, file: fs.FileHandle | NodeJS.ErrnoException): Promise<Opened> {
  if (file instanceof Error) return openFailure(rel, file);
  const st = await file.stat();
  const where = process.platform === "linux" ? await fs.readlink(`${FD_DIR}/${file.fd}`).catch(() => null) : root;
  if (!st.isFile() || where === null || !isInside(root, where)) {
    await file.close();
    return st.isFile() ? refuseOpen("outside_workspace", `Error: "${rel}" leads outside the project folder; access refused.`) : refuseOpen("not_a_file", `Error: "${rel}" is not a regular file.`);
  }
  return { ok: true, handle: file };
}

function openFailure(rel: string, e: NodeJS.ErrnoException): Opened {
  switch (e.code) {
    case "ELOOP":
      return refuseOpen("outside_workspace", `Error: "${rel}" went through a symlink while it was opened (the project changed meanwhile); access refused.`);
    case "ENOENT":
      return refuseOpen("not_found", `Error: "${rel}" does not exist (it changed while it was opened).`);
    case "ENOTDIR":
      return refuseOpen("not_a_directory", `Error: a folder on the way to "${rel}" is a file.`);
    case "ENXIO":
    case "EISDIR":
      return refuseOpen("not_a_file", `Error: "${rel}" is not a regular file.`);
    default:
      return refuseOpen("io_error", `Error: cannot open "${rel}": ${e.code ?? e.message}.`);
  }
}

const refuseOpen = (code: ToolOutcome["code"], text: string): Opened => ({ ok: false, outcome: { code, text } });
