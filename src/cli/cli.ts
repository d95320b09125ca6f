// Owns: the whole `qtc` program, every command registered (what the tests inspect and run in process). The
// installed command (bin/qtc.js) starts from main.ts instead, which registers only the command that runs.

import type { Command } from "commander";
import { COMMANDS } from "./commands/index.js";
import { createProgram, runProgram, settle } from "./program.js";

export function buildProgram(): Command {
  const program = createProgram();
  for (const register of COMMANDS) settle(register(program));
  return program;
}

/** Run the CLI on argv; resolves to the process exit code. Never throws. */
export async function main(argv: string[]): Promise<number> {
  return runProgram(buildProgram(), argv);
}
