// Owns: the `qtc grammar` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerGrammar(program: Command): Command {
  return program
    .command("grammar")
    .description("Compile tool schemas into a GBNF grammar (not built yet)")
    .action(() => fail("internal", "qtc grammar is not built yet", { exitCode: 1 }));
}
