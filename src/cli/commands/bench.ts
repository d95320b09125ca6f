// Owns: the `qtc bench` command: parses the flags (each `--lora` bound to the `--model` before it), runs the
// bench with a progress bar and Ctrl-C handling, and prints the table (or the report as JSON).

import { type Command, InvalidArgumentError, Option } from "commander";
import { BENCH_DEFAULTS, benchContextSize } from "../../bench/defaults.js";
import { createProgress } from "../../bench/progress.js";
import { selectModes } from "../../bench/plan.js";
import { allErroredLines, renderTable } from "../../bench/render-text.js";
import { runBench } from "../../bench/run-bench.js";
import { REFERENCE_KINDS, type BenchModelSpec, type BenchPlanConfig } from "../../bench/types.js";
import { GPU_CHOICES } from "../../model/load.js";
import { MODEL_SPEC_HELP } from "../../model/resolve.js";
import { choiceOption, intOption, MAX_CONTEXT_SIZE, threadsHelp } from "../options.js";
import { checkOutputDir } from "../out-path.js";
import { UNSAFE_NO_SANDBOX_HELP } from "./agent.js";
import { CALL_POLICIES, type CallPolicy } from "../../harness/call-policy.js";
import { fail } from "../../errors.js";
import { BENCH_SUITES, benchBfcl } from "./bench-bfcl.js";
import { BFCL_CATEGORIES } from "../../bench/bfcl-data.js";

interface BenchFlags {
  model?: BenchModelSpec[];
  constrained?: boolean;
  baseline: boolean;
  mode?: "constrained" | "unconstrained";
  reference?: (typeof REFERENCE_KINDS)[number];
  tasks?: string;
  seeds?: number;
  maxTurns?: number;
  maxTokens?: number;
  toolChoice?: "auto" | "required";
  callPolicy?: CallPolicy;
  thinking?: "on" | "off";
  out?: string;
  json?: boolean;
  resume?: string;
  threads?: number;
  contextSize?: number;
  /** The old spelling of --context-size, kept hidden so no script breaks. */
  context?: number;
  gpu?: (typeof GPU_CHOICES)[number];
  lora?: string;
  unsafeNoSandbox?: boolean;
  suite: (typeof BENCH_SUITES)[number];
  categories?: string;
  limit?: number;
  data?: string;
}

/** Exit code of a bench stopped by Ctrl-C (128 + SIGINT), after its partial report is written. */
const INTERRUPTED_EXIT = 130;
/** Exit code of a bench in which some mode's runs all errored (its report is still written). */
const ALL_ERRORED_EXIT = 1;

export function registerBench(program: Command): Command {
  // `--model` and `--lora` share this list, in the order they appear: a `--lora` belongs to the model before it.
  const models: BenchModelSpec[] = [];
  const d = BENCH_DEFAULTS;
  return program
    .command("bench")
    .description("Measure tool-call validity, call rate, task success and speed, with and without the grammar, across models")
    .option("--constrained", "add the constrained row beside the unconstrained baseline")
    .option("--no-baseline", "with --constrained or --reference: skip the unconstrained baseline")
    .option("--mode <mode>", "run one mode alone: unconstrained or constrained", choiceOption(["unconstrained", "constrained"] as const))
    .option(
      "-m, --model <model>",
      `a model (repeatable; one row per mode each): ${MODEL_SPEC_HELP}, replay:FILE, or an engine: llama-server:URL, openai:URL (default: ${d.model})`,
      (spec: string) => {
        models.push({ spec, lora: null });
        return models;
      },
    )
    .option("--lora <file>", "a LoRA adapter (GGUF) for the --model before it", (file: string) => {
      const last = models[models.length - 1];
      if (!last) throw new InvalidArgumentError("--lora applies to the --model before it: put it after one.");
      if (last.lora !== null) throw new InvalidArgumentError(`--model ${last.spec} already has a LoRA adapter (${last.lora}).`);
      last.lora = file;
      return file;
    })
    .option("--reference <engine>", "add a row for node-llama-cpp's own function calling", choiceOption(REFERENCE_KINDS))
    .option("--tasks <which>", "N (the first N tasks), a folder of tasks, or task ids separated by commas (default: all 40)")
    .option("--seeds <n>", `seeds per task (default: ${d.seeds})`, intOption(1, 1000))
    .option("--max-turns <n>", `turns per run (default: ${d.maxTurns})`, intOption(1, 100))
    .option("--max-tokens <n>", `tokens per turn (default: ${d.maxTokens})`, intOption(1, 32768))
    .option("--tool-choice <choice>", `auto or required (default: ${d.toolChoice}; required when every model is synthetic:*)`, choiceOption(["auto", "required"] as const))
    .option("--call-policy <policy>", `how the agent loop draws calls out: ${CALL_POLICIES.join(", ")} (default: auto)`, choiceOption(CALL_POLICIES))
    .option("--thinking <on|off>", "let the model think first (default: off)", choiceOption(["on", "off"] as const))
    .option("--out <dir>", `output folder (default: ${d.resultsDir}/<timestamp>/)`)
    .option("--resume <dir>", "continue an interrupted bench in its folder (same settings)")
    .option("--threads <n>", threadsHelp(), intOption(1, 1024))
    .option("--context-size <n>", `context size in tokens (default: room for every turn, ${benchContextSize(d.maxTurns, d.maxTokens)} for ${d.maxTurns} turns × ${d.maxTokens} tokens; ${d.contextSize} for --suite bfcl)`, intOption(256, MAX_CONTEXT_SIZE))
    .addOption(new Option("--context <n>", "same as --context-size").argParser(intOption(256, MAX_CONTEXT_SIZE)).hideHelp())
    .option("--gpu <backend>", `compute backend (default: ${d.gpu})`, choiceOption(GPU_CHOICES))
    .option("--suite <suite>", `what to run: tasks (the 40 agent tasks) or bfcl (BFCL's single-turn questions, downloaded at first use)`, choiceOption(BENCH_SUITES), "tasks")
    .option("--categories <list>", `--suite bfcl: categories separated by commas, or all (default: simple_python,multiple,parallel,parallel_multiple,irrelevance; known: ${BFCL_CATEGORIES.join(", ")})`)
    .option("--limit <n>", "--suite bfcl: the first N questions of each category (default: all)", intOption(1, 1_000_000))
    .option("--data <dir>", "--suite bfcl: a local copy of BFCL's bfcl_eval/data folder (default: download into the user cache)")
    .option("--json", "print report.json's content instead of the table")
    .option("--unsafe-no-sandbox", UNSAFE_NO_SANDBOX_HELP)
    .action(async (flags: BenchFlags) => {
      if (flags.out !== undefined) checkOutputDir("--out", flags.out);
      const modes = selectModes({ constrained: flags.constrained, baseline: flags.baseline, mode: flags.mode, reference: flags.reference !== undefined });
      if (flags.suite === "bfcl") {
        const taskFlags = { "--tasks": flags.tasks, "--seeds": flags.seeds, "--max-turns": flags.maxTurns, "--call-policy": flags.callPolicy, "--resume": flags.resume, "--thinking": flags.thinking };
        const notForBfcl = Object.entries(taskFlags).filter(([, v]) => v !== undefined).map(([k]) => k);
        const ctl = new AbortController();
        const stop = (): void => ctl.abort();
        process.once("SIGINT", stop);
        try {
          return await benchBfcl({ ...flags, modes, contextSize: flags.contextSize ?? flags.context, notForBfcl }, ctl.signal);
        } finally {
          process.off("SIGINT", stop);
        }
      }
      if (flags.categories !== undefined || flags.limit !== undefined || flags.data !== undefined) fail("invalid_option", "--categories, --limit and --data go with --suite bfcl");
      const explicit = new Set<keyof BenchPlanConfig>();
      if (flags.model) explicit.add("models");
      if (flags.constrained || flags.mode || flags.reference || flags.baseline === false) explicit.add("modes");
      if (flags.tasks !== undefined) explicit.add("tasks");
      if (flags.seeds !== undefined) explicit.add("seeds");
      if (flags.maxTurns !== undefined) explicit.add("maxTurns");
      if (flags.maxTokens !== undefined) explicit.add("maxTokens");
      if (flags.toolChoice !== undefined) explicit.add("toolChoice");
      if (flags.callPolicy !== undefined) explicit.add("callPolicy");
      if (flags.thinking !== undefined) explicit.add("thinking");

      const controller = new AbortController();
      const progress = createProgress(process.stderr);
      const onSigint = (): void => {
        if (controller.signal.aborted) {
          progress.stop();
          process.stderr.write("qtc bench: stopped; the transcripts of finished runs are kept.\n");
          process.exit(INTERRUPTED_EXIT);
        }
        controller.abort();
        progress.onEvent({ type: "stopping" });
      };
      process.on("SIGINT", onSigint);
      try {
        const outcome = await runBench({
          models: flags.model,
          modes,
          tasks: flags.tasks,
          seeds: flags.seeds,
          maxTurns: flags.maxTurns,
          maxTokens: flags.maxTokens,
          toolChoice: flags.toolChoice,
          callPolicy: flags.callPolicy,
          thinking: flags.thinking === undefined ? undefined : flags.thinking === "on",
          threads: flags.threads,
          contextSize: flags.contextSize ?? flags.context,
          gpu: flags.gpu,
          sandbox: flags.unsafeNoSandbox ? "off" : undefined,
          out: flags.out,
          resume: flags.resume,
          explicit,
          signal: controller.signal,
          onEvent: (e) => progress.onEvent(e),
        });
        progress.stop();
        if (flags.json) process.stdout.write(`${JSON.stringify(outcome.report, null, 2)}\n`);
        else process.stdout.write(`${renderTable(outcome.report, { color: process.stdout.isTTY === true })}\nreport: ${outcome.dir}\n`);
        // A mode whose every run errored measured nothing: say so in one line and fail, so no script reads its zeros.
        const allErrored = allErroredLines(outcome.report);
        if (allErrored.length && !outcome.interrupted) {
          process.stderr.write(`qtc bench: ${allErrored[0]}${allErrored.length > 1 ? ` (and ${allErrored.length - 1} more rows)` : ""}\n`);
          process.exitCode = ALL_ERRORED_EXIT;
        }
        if (outcome.interrupted) {
          process.stderr.write(`qtc bench: interrupted; partial report written. Continue with: qtc bench --resume ${outcome.dir}\n`);
          process.exitCode = INTERRUPTED_EXIT;
        }
      } finally {
        progress.stop();
        process.off("SIGINT", onSigint);
      }
    });
}
