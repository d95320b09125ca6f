// Owns: the `qtc types` command: TypeScript declarations for a tools file's arguments.

import type { Command } from "commander";
import { toolDeclarations } from "../../tools/declarations.js";
import { loadToolsFile } from "../../tools/load.js";

export function registerTypes(program: Command): Command {
  return program
    .command("types")
    .description("Print TypeScript declarations for the tools' arguments (one interface per tool)")
    .requiredOption("--tools <file>", "tools JSON file (OpenAI, Anthropic or bare shapes)")
    .action(async (opts: { tools: string }) => {
      const compiled = loadToolsFile(opts.tools);
      process.stdout.write(await toolDeclarations(compiled.tools));
    });
}
