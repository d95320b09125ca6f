// Owns: the `qtc pull` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerPull(program: Command): Command {
  return program
    .command("pull")
    .description("Download a model into models/ (not built yet)")
    .action(() => fail("internal", "qtc pull is not built yet", { exitCode: 1 }));
}
