// Owns: the `qtc types` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerTypes(program: Command): Command {
  return program
    .command("types")
    .description("Print TypeScript declarations for the tools' arguments (not built yet)")
    .action(() => fail("internal", "qtc types is not built yet", { exitCode: 1 }));
}
