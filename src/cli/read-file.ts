// Owns: reading a file a CLI flag names, with the one-line `file_not_found` error every command gives.

import { readFileSync } from "node:fs";
import { fail } from "../errors.js";

/** Why a file could not be read, in words (`no such file`, `it is a folder`, `permission denied`). */
export function unreadable(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case "ENOENT":
      return "no such file";
    case "EISDIR":
      return "it is a folder";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOTDIR":
      return "a part of the path is a file, not a folder";
    default:
      return (e as Error).message;
  }
}

/** The file's text; a file that cannot be read is `file_not_found` naming it (`what`: e.g. "messages file"). */
export function readTextFile(path: string, what?: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    fail("file_not_found", `cannot read ${what ? `${what} ` : ""}${path}: ${unreadable(e)}`, { path });
  }
}
