// Owns: the `qtc make-model` command (not built yet: it says so and exits 1).

import type { Command } from "commander";
import { fail } from "../../errors.js";

export function registerMakeModel(program: Command): Command {
  return program
    .command("make-model")
    .description("Write a synthetic Qwen3 GGUF (real tokenizer, random weights) (not built yet)")
    .action(() => fail("internal", "qtc make-model is not built yet", { exitCode: 1 }));
}
