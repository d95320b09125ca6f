// Owns: checking, before any work starts, that a path a flag names can be written: a file to write must not be
// a folder, a folder to fill must not be a file, and the nearest existing folder above either must be a folder.
// Without it, `qtc agent --transcript DIR` ran the whole task and then died with EISDIR.

import { statSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { fail } from "../errors.js";

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
