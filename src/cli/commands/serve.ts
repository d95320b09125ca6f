// Owns: the `qtc serve` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerServe(program: Command): Command {
  return program
    .command("serve")
    .description("Serve an OpenAI- and Anthropic-compatible API (not built yet)")
    .action(() => fail("internal", "qtc serve is not built yet", { exitCode: 1 }));
}
