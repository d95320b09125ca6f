// Owns: the top-level `qtc` program (name, version, one-line errors) and running it: every failure becomes
// one line and an exit code. Light on purpose: `qtc --help` loads this, commander and the command list only.
// Exit codes: 0 success, 1 an operation failed (or a check said no), 2 bad usage or bad input.

import { Command, CommanderError } from "commander";
import { QtcException } from "../errors.js";

/** The program with no command registered yet. */
export function createProgram(): Command {
  return new Command("qtc")
    .description("Tool calls you can trust from local Qwen3 models: grammar, strict parser, bench.")
    .version(process.env.npm_package_version ?? "0.1.0", "-V, --version")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(oneLine(str) + "\n") });
}

/** Give a registered command the program's one-line errors and exit handling. */
export function settle(cmd: Command): Command {
  return cmd.exitOverride().configureOutput({ outputError: (str, write) => write(oneLine(str) + "\n") });
}

/** Run `program` on argv; resolves to the process exit code. Never throws. */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (e) {
    return exitCodeFor(e);
  }
}

function exitCodeFor(e: unknown): number {
  if (e instanceof CommanderError) {
    // help and version are not errors; commander already printed the usage error itself.
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return 0;
    return 2;
  }
  if (e instanceof QtcException) {
    process.stderr.write(`qtc: ${oneLine(e.message)}\n`);
    return e.exitCode;
  }
  const system = pathError(e);
  if (system !== undefined) {
    process.stderr.write(`qtc: ${system}\n`);
    return 2;
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`qtc: unexpected failure: ${oneLine(message)}\n`);
  if (process.env.QTC_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  return 1;
}

/**
 * Errors about a path the user named (a folder where a file was expected, a missing or read-only place) are
 * bad input, not qtc bugs: the commands check their flags first, and this is the net for what they cannot
 * foresee. Other system errors (disk full, too many open files) stay unexpected failures.
 */
const PATH_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or folder",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder",
  EEXIST: "it already exists",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many symbolic links",
};

function pathError(e: unknown): string | undefined {
  const { code, path, syscall } = (e ?? {}) as NodeJS.ErrnoException;
  const why = code === undefined ? undefined : PATH_ERRORS[code];
  if (why === undefined || typeof path !== "string") return undefined;
  return oneLine(`cannot ${syscall ?? "use"} ${path}: ${why}`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
