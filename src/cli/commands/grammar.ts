// Owns: the `qtc grammar` command: compile a tools file into GBNF (or xgrammar's EBNF, `--dialect xgrammar`) and
// print it, or check a text against the grammar with qtc's own constraint engine (the one the runtime constrains
// with), or xgrammar's (`--check FILE`: exit 0 accepted, 1 rejected).

import type { Command } from "commander";
import { fail } from "../../errors.js";
import { FORMAT_IDS } from "../../formats/index.js";
import type { FormatId } from "../../formats/types.js";
import { compileXgrammar, GRAMMAR_DIALECTS, type GrammarDialect } from "../../grammar/index.js";
import { xgrammarAccepts } from "../../engines/xgrammar-check.js";
import { type CompiledGrammar, compileToolGrammar, GRAMMAR_DEFAULTS, GRAMMAR_PHASES, type GrammarPhase } from "../../grammar/index.js";
import type { CheckResult } from "../../engine/checker.js";
import { GrammarChecker } from "../../model/grammar-checker.js";
import type { BudgetSplit } from "../../grammar/budget-share.js";
import { GUARDED_FACTORS } from "../../runtime/grammar-source.js";
import { createLlama, loadModel, MODEL_SPEC_HELP, resolveModel } from "../../model/index.js";
import { makeStandIn } from "../../training/stand-ins.js";
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
  json?: boolean;
  dialect: GrammarDialect;
  budgetSplit: BudgetSplit;
}

const BUDGET_SPLITS: readonly BudgetSplit[] = ["worst-case", "shared"];
/**
 * How `qtc grammar` splits the budget. Default: "worst-case", a grammar whose budget holds on its own (its readers
 * are engines without qtc's budget guard; issue 52). "shared" is what `qtc serve` compiles, which needs the guard.
 */
const GRAMMAR_CLI_SPLIT: BudgetSplit = "worst-case";

const PHASES = GRAMMAR_PHASES;
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
    .option("--max-calls <n>", "most calls per turn when parallel (worst-case: at most as many as fit --max-tokens together)", intOption(1, 1000), GRAMMAR_DEFAULTS.maxCalls)
    .option(
      "--max-tokens <n>",
      "the turn's token budget; worst-case: the grammar alone bounds the output to n bytes, so to at most n tokens with any tokenizer; shared: compiled as qtc serve does (up to 8n bytes), which a runtime must close within n tokens",
      intOption(1, 1_000_000),
      GRAMMAR_DEFAULTS.maxTokens,
    )
    .option("--budget-split <split>", `${BUDGET_SPLITS.join("|")}: worst-case holds its budget on its own; shared gives each value more room but needs qtc's budget guard`, choiceOption(BUDGET_SPLITS), GRAMMAR_CLI_SPLIT)
    .option("--thinking", "start with a bounded <think> phase (default: none)")
    .option("--phase <phase>", `where the grammar starts: ${PHASES.join("|")}`, choiceOption(PHASES), GRAMMAR_DEFAULTS.phase)
    .option("--check <file>", "check this text against the grammar instead of printing it (exit 0 accepted, 1 rejected)")
    .option("-m, --model <spec>", `model whose vocabulary --check uses: ${MODEL_SPEC_HELP}`, CHECK_MODEL)
    .option("--json", "print the grammar, the tools it left out and any warnings as JSON")
    .option("--dialect <dialect>", `grammar dialect: ${GRAMMAR_DIALECTS.join("|")} (xgrammar: what vLLM and SGLang take)`, choiceOption(GRAMMAR_DIALECTS), "gbnf")
    .action(async (flags: GrammarFlags) => {
      const tools = loadToolsFile(flags.tools);
      if (flags.dialect === "xgrammar") return xgrammarAction(tools.tools, flags);
      const compiled = compileForBudget(tools.tools, flags);
      if (!compiled.ok) failCompile(compiled.error);
      const warnings = budgetWarnings(compiled.value, flags.maxTokens);
      for (const warning of warnings) process.stderr.write(`qtc: warning: ${warning.message}\n`);
      if (flags.check === undefined) {
        process.stdout.write(flags.json ? JSON.stringify(grammarJson(compiled.value, warnings, flags.maxTokens), null, 2) + "\n" : compiled.value.gbnf);
        return;
      }
      const text = readTextFile(flags.check);
      const llama = await createLlama({ gpu: "cpu" });
      const model = await loadModel(llama, { path: (await resolveModel(flags.model, { standIns: makeStandIn })).path });
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

/** `--dialect xgrammar`: print xgrammar's EBNF, or check a text with xgrammar itself (web-xgrammar, WASM). */
async function xgrammarAction(tools: Parameters<typeof compileXgrammar>[0], flags: GrammarFlags): Promise<void> {
  const compiled = compileXgrammar(tools, compileOptions(flags));
  if (!compiled.ok) failCompile(compiled.error);
  const g = compiled.value;
  if (flags.check === undefined) {
    process.stdout.write(flags.json ? JSON.stringify({ ebnf: g.ebnf, format: g.format, toolChoice: g.toolChoice, dispatch: g.dispatch, maxCalls: g.maxCalls ?? null, leftToValidator: g.leftToValidator }, null, 2) + "\n" : g.ebnf);
    return;
  }
  const accepted = await xgrammarAccepts(g.ebnf, readTextFile(flags.check));
  process.stdout.write(accepted ? "accepted\n" : "rejected by xgrammar\n");
  process.exitCode = accepted ? 0 : 1;
}

/**
 * The grammar for the flags. Worst-case: compiled for `--max-tokens` bytes (a token is at least a byte), so the
 * budget holds without any guard. Shared: as `qtc serve` compiles it, for the budget in bytes and, where a tool does
 * not fit byte for byte, for 2, 4 or 8 times as many bytes (the runtime's guard then closes the call in time), so a
 * budget the server meets is accepted here too (issue 53).
 */
function compileForBudget(tools: Parameters<typeof compileToolGrammar>[0], flags: GrammarFlags): ReturnType<typeof compileToolGrammar> {
  const first = compileToolGrammar(tools, compileOptions(flags));
  if (flags.budgetSplit === "worst-case") return first.ok ? holdingAlone(tools, flags, first.value) : first;
  if (first.ok && first.value.omittedTools.length === 0) return first;
  if (!first.ok && first.error.code !== "budget_too_small") return first;
  for (const factor of GUARDED_FACTORS) {
    const wide = compileToolGrammar(tools, { ...compileOptions(flags), maxTokens: flags.maxTokens * factor });
    if (wide.ok && wide.value.omittedTools.length === 0) return wide;
  }
  return first;
}

/**
 * A worst-case grammar whose call list fits the budget too: each call's worst case fits it, but `--max-calls` of
 * them (or a preface and more than one) may not; the calls are then limited to what fits, so the budget holds alone.
 */
function holdingAlone(tools: Parameters<typeof compileToolGrammar>[0], flags: GrammarFlags, g: CompiledGrammar): ReturnType<typeof compileToolGrammar> {
  if (g.maxCalls <= 1 || g.worstCaseCallTokens === 0) return { ok: true, value: g };
  // Under `auto` from the start the preface takes what one call leaves, so one call is all that fits beside it.
  const preface = g.toolChoice === "auto" && g.phase === "start";
  const fit = preface ? 1 : Math.max(1, Math.floor((flags.maxTokens - g.thinkingTokens) / g.worstCaseCallTokens));
  if (fit >= g.maxCalls) return { ok: true, value: g };
  return compileToolGrammar(tools, { ...compileOptions(flags), maxCalls: fit });
}

/** A warning about the budget: `no_call_fits` (the grammar holds free text only) or `tools_left_out`. */
export interface BudgetWarning {
  code: "no_call_fits" | "tools_left_out";
  tools: readonly string[];
  message: string;
}

/**
 * Under `auto` a tool whose shortest call cannot fit the token budget is left out of the grammar (under
 * `required` that is an error); say so, because a grammar with no call in it looks like a working one.
 */
export function budgetWarnings(g: CompiledGrammar, maxTokens = g.maxTokens): BudgetWarning[] {
  const tools = g.omittedTools;
  if (tools.length === 0) return [];
  const names = tools.join(", ");
  const hint = g.budgetSplit === "worst-case" ? " or use --budget-split shared (with a runtime that closes calls in time)" : "";
  if (tools.length === g.tools.length) {
    return [{ code: "no_call_fits", tools, message: `no call fits in --max-tokens ${maxTokens}: the grammar admits free text only (left out: ${names}); raise --max-tokens${hint}` }];
  }
  const [verb, them] = tools.length === 1 ? ["is", "it"] : ["are", "them"];
  return [{ code: "tools_left_out", tools, message: `${names} cannot fit in --max-tokens ${maxTokens} and ${verb} left out of the grammar; raise --max-tokens to offer ${them}${hint}` }];
}

function grammarJson(g: CompiledGrammar, warnings: BudgetWarning[], maxTokens: number) {
  return {
    gbnf: g.gbnf,
    format: g.format,
    toolChoice: g.toolChoice,
    maxTokens,
    // What the printed grammar's budget needs: "worst-case" holds alone; "shared" needs a runtime's budget guard.
    budgetSplit: g.budgetSplit,
    selfSufficient: g.budgetSplit === "worst-case",
    budgetBytes: g.maxTokens,
    maxCalls: g.maxCalls,
    worstCaseCallTokens: g.worstCaseCallTokens,
    tools: g.tools,
    omittedTools: g.omittedTools,
    warnings,
  };
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

/** The compile options both dialects take from the flags. */
function compileOptions(flags: GrammarFlags) {
  return {
    format: flags.format,
    toolChoice: toolChoiceFlag(flags.toolChoice),
    parallel: flags.parallel,
    maxCalls: flags.maxCalls,
    maxTokens: flags.maxTokens,
    thinking: flags.thinking === true,
    phase: flags.phase,
    budgetSplit: flags.budgetSplit,
  };
}

/** A compile refusal as the CLI's error, naming the schema pointer at fault. */
function failCompile(error: { code: Parameters<typeof fail>[0]; message: string; path?: string }): never {
  const where = error.path !== undefined ? ` (at ${error.path || "/"})` : "";
  return fail(error.code, `${error.message}${where}`, { path: error.path });
}
