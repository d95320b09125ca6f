// Owns: the `qtc grammar` command: compile a tools file into GBNF and print it, or check a text against the
// grammar with llama.cpp's own grammar engine (`--check FILE`: exit 0 accepted, 1 rejected).

import type { Command } from "commander";
import { fail } from "../../errors.js";
import { FORMAT_IDS } from "../../formats/index.js";
import type { FormatId } from "../../formats/types.js";
import { type CheckResult, compileToolGrammar, GRAMMAR_DEFAULTS, GrammarChecker, type GrammarPhase } from "../../grammar/index.js";
import { createLlama, loadModel, MODEL_SPEC_HELP, resolveModel } from "../../model/index.js";
import { loadToolsFile } from "../../tools/load.js";
import { choiceOption, intOption, toolChoiceFlag } from "../options.js";
import { readTextFile } from "../read-file.js";

interface GrammarFlags {
  tools: string;
  format: FormatId;
  toolChoice: string;
  parallel: boolean;
  maxCalls: number;
  maxTokens: number;
  thinking?: boolean;
  phase: GrammarPhase;
  check?: string;
  model: string;
}

const PHASES = ["start", "after-open"] as const;
/** Model whose vocabulary `--check` tokenizes with. Default: the synthetic tiny Qwen3 (written on first use). */
const CHECK_MODEL = "synthetic:tiny";

export function registerGrammar(program: Command): Command {
  return program
    .command("grammar")
    .description("Compile tool schemas into a GBNF grammar (prints it), or --check a text against it")
    .requiredOption("--tools <file>", "tools JSON: an OpenAI, Anthropic or bare {name, parameters} list")
    .option("--format <format>", `tool-call format: ${FORMAT_IDS.join("|")}`, choiceOption(FORMAT_IDS), GRAMMAR_DEFAULTS.format)
    .option("--tool-choice <choice>", "auto|required|none, or a tool name", String(GRAMMAR_DEFAULTS.toolChoice))
    .option("--no-parallel", "allow one call per turn (default: parallel calls)")
    .option("--max-calls <n>", "most calls per turn when parallel", intOption(1, 1000), GRAMMAR_DEFAULTS.maxCalls)
    .option("--max-tokens <n>", "token budget every call must fit", intOption(1, 1_000_000), GRAMMAR_DEFAULTS.maxTokens)
    .option("--thinking", "start with a bounded <think> phase (default: none)")
    .option("--phase <phase>", `where the grammar starts: ${PHASES.join("|")}`, choiceOption(PHASES), GRAMMAR_DEFAULTS.phase)
    .option("--check <file>", "check this text against the grammar instead of printing it (exit 0 accepted, 1 rejected)")
    .option("--model <spec>", `model whose vocabulary --check uses: ${MODEL_SPEC_HELP}`, CHECK_MODEL)
    .action(async (flags: GrammarFlags) => {
      const tools = loadToolsFile(flags.tools);
      const compiled = compileToolGrammar(tools.tools, {
        format: flags.format,
        toolChoice: toolChoiceFlag(flags.toolChoice),
        parallel: flags.parallel,
        maxCalls: flags.maxCalls,
        maxTokens: flags.maxTokens,
        thinking: flags.thinking === true,
        phase: flags.phase,
      });
      if (!compiled.ok) {
        const where = compiled.error.path !== undefined ? ` (at ${compiled.error.path || "/"})` : "";
        fail(compiled.error.code, `${compiled.error.message}${where}`, { path: compiled.error.path });
      }
      if (flags.check === undefined) {
        process.stdout.write(compiled.value.gbnf);
        return;
      }
      const text = readTextFile(flags.check);
      const llama = await createLlama({ gpu: "cpu" });
      const model = await loadModel(llama, { path: (await resolveModel(flags.model)).path });
      try {
        const result = (await GrammarChecker.create(model, compiled.value)).checkText(text);
        process.stdout.write(describe(result, text) + "\n");
        process.exitCode = result.accepted ? 0 : 1;
      } finally {
        await model.dispose();
        await llama.dispose();
      }
    });
}

/** One line: accepted, or where and why the text stops matching. */
function describe(r: CheckResult, text: string): string {
  if (r.accepted) return "accepted";
  if (!r.stoppedAt) return "rejected: the text ends before the grammar is complete";
  const before = text.slice(0, r.stoppedAt.offset);
  const line = before.split("\n").length;
  const column = r.stoppedAt.offset - before.lastIndexOf("\n");
  return `rejected: stops matching at line ${line}, column ${column} (offset ${r.stoppedAt.offset}): ${JSON.stringify(r.stoppedAt.text)}`;
}
