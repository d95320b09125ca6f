// Owns: the `qtc parse` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerParse(program: Command): Command {
  return program
    .command("parse")
    .description("Parse model output into tool calls with the strict post-parser (not built yet)")
    .action(() => fail("internal", "qtc parse is not built yet", { exitCode: 1 }));
}
