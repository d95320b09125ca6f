// Owns: the `qtc agent` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerAgent(program: Command): Command {
  return program
    .command("agent")
    .description("Run one bench task through the agent loop (not built yet)")
    .action(() => fail("internal", "qtc agent is not built yet", { exitCode: 1 }));
}
