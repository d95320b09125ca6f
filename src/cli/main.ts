// Owns: the installed `qtc` command's entry: the program with the running command's module loaded and every
// other command as its name and summary only, so `qtc --help` and each command start without loading the rest.

import type { Command } from "commander";
import { COMMAND_LIST } from "./commands/list.js";
import { createProgram, runProgram, settle } from "./program.js";

/** The command argv names (`qtc help NAME` names NAME), or undefined for the top-level help and version. */
export function commandNamed(argv: readonly string[]): string | undefined {
  const args = argv.slice(2).filter((a) => !a.startsWith("-"));
  return args[0] === "help" ? args[1] : args[0];
}

export async function lazyProgram(argv: readonly string[]): Promise<Command> {
  const program = createProgram();
  const name = commandNamed(argv);
  for (const entry of COMMAND_LIST) {
    if (entry.name === name) settle((await entry.load())(program));
    else settle(program.command(entry.name).description(entry.summary));
  }
  return program;
}

/** Run the CLI on argv; resolves to the process exit code. Never throws. */
export async function main(argv: string[]): Promise<number> {
  return runProgram(await lazyProgram(argv), argv);
}
