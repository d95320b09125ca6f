// Owns: checking, before any work starts, that a path a flag names can be written: a file to write must not be
// a folder, a folder to fill must not be a file, and the nearest existing folder above either must be a folder.
// Without it, `qtc agent --transcript DIR` ran the whole task and then died with EISDIR.

import { readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fail } from "../errors.js";
import { packageRoot } from "../model/paths.js";

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ENOTDIR") return undefined; // a file above: reported by the ancestor walk below
    fail("invalid_option", `cannot use ${path}: ${(e as Error).message}`, { path });
  }
}

/** The nearest existing path above `path` must be a folder (folders below it are made on the way). */
function checkAncestors(flag: string, path: string): void {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const stat = statOf(dir);
    if (stat) {
      if (!stat.isDirectory()) fail("invalid_option", `${flag} ${path}: ${dir} is a file, not a folder`, { path });
      return;
    }
    if (dirname(dir) === dir) return;
  }
}

/** A file the command will write (or append to). Throws `invalid_option` (exit 2) when it cannot be one. */
export function checkOutputFile(flag: string, given: string): void {
  const path = resolve(given);
  if (statOf(path)?.isDirectory()) fail("invalid_option", `${flag} ${given} is a folder; give a file path`, { path });
  checkAncestors(flag, path);
}

/** A folder the command will create or fill. Throws `invalid_option` (exit 2) when it cannot be one. */
export function checkOutputDir(flag: string, given: string): void {
  const path = resolve(given);
  const stat = statOf(path);
  if (stat && !stat.isDirectory()) fail("invalid_option", `${flag} ${given} is a file; give a folder path`, { path });
  checkAncestors(flag, path);
}

/** `path` with its existing part's symbolic links resolved (the rest as given), so a link cannot hide where it points. */
function realOf(path: string): string {
  for (let dir = path, rest = ""; ; rest = join(dir.slice(dirname(dir).length + 1), rest), dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), rest);
    } catch {
      if (dirname(dir) === dir) return path;
    }
  }
}

/**
 * A folder the command will fill must not be one the qtc package ships (package.json `files`: data/, docs/,
 * bench/tasks/, …) or lie inside one: from a clone, `qtc data --out data/` wrote into the tracked data/ folder.
 * Throws `invalid_option` (exit 2).
 */
export function checkNotInPackage(flag: string, given: string, root: string = packageRoot()): void {
  const path = realOf(resolve(given));
  const pkg = realOf(root);
  let files: string[] = [];
  try {
    files = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files?: string[] }).files ?? [];
  } catch {
    return;
  }
  for (const entry of files.filter((f) => !f.startsWith("!"))) {
    const shipped = join(pkg, entry);
    const rel = relative(shipped, path);
    if (rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== path)) {
      fail("invalid_option", `${flag} ${given} is inside qtc's own ${entry}/ folder, which the package ships; write somewhere else, e.g. ${flag} train-data/`, { path });
    }
  }
}
