// Owns: the `qtc bench` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerBench(program: Command): Command {
  return program
    .command("bench")
    .description("Measure tool-call validity, task success and speed, with and without the grammar (not built yet)")
    .action(() => fail("internal", "qtc bench is not built yet", { exitCode: 1 }));
}
