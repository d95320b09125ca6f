// Owns: the `qtc run` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerRun(program: Command): Command {
  return program
    .command("run")
    .description("Generate one assistant turn with tools (not built yet)")
    .action(() => fail("internal", "qtc run is not built yet", { exitCode: 1 }));
}
