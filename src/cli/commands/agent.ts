// Owns: the `qtc agent` command: runs one bench task through the agent loop and prints a summary of the run.

import type { Command } from "commander";
import { CALL_POLICIES, CALL_POLICY_DEFAULTS, type CallPolicy } from "../../harness/call-policy.js";
import { AGENT_DEFAULTS, SANDBOX_DEFAULTS } from "../../harness/defaults.js";
import { runTask } from "../../harness/run-task.js";
import { makeStandIn } from "../../training/stand-ins.js";
import { formatRunSummary } from "../../harness/summary.js";
import { RUNTIME_DEFAULTS } from "../../runtime/defaults.js";
import type { GenerationMode } from "../../runtime/types.js";
import { choiceOption, intOption, MAX_CONTEXT_SIZE, threadsHelp, TOOL_CHOICE_DEFAULT_HELP, toolChoiceFor } from "../options.js";
import { checkOutputFile } from "../out-path.js";

interface AgentFlags {
  task: string;
  model: string;
  mode: GenerationMode;
  seed: number;
  maxTurns: number;
  maxTokens: number;
  toolChoice?: "auto" | "required";
  callPolicy: CallPolicy;
  thinking: "on" | "off";
  transcript?: string;
  testTimeout: number;
  threads?: number;
  contextSize?: number;
  keepWorkspace?: boolean;
  json?: boolean;
  unsafeNoSandbox?: boolean;
}

/** Help of `--unsafe-no-sandbox` (agent and bench). */
export const UNSAFE_NO_SANDBOX_HELP =
  "run the task's code without the OS sandbox (bubblewrap) when it is unavailable: the model's code can then read, write and connect wherever you can";

export function registerAgent(program: Command): Command {
  return program
    .command("agent")
    .description("Run one bench task through the agent loop and print how the run went")
    .requiredOption("--task <dir>", "task folder (holds task.json), e.g. bench/tasks/is-leap-year")
    .requiredOption("-m, --model <model>", "GGUF path, hf: URI, registry name, synthetic:tiny|0.6b, or replay:FILE (a JSON list of outputs, or a transcript[#N])")
    .option("--mode <mode>", "constrained or unconstrained", choiceOption(["constrained", "unconstrained"] as const), AGENT_DEFAULTS.mode)
    .option("--seed <n>", "sampling seed", intOption(0, 2 ** 32 - 1), AGENT_DEFAULTS.seed)
    .option("--max-turns <n>", "turns before the run stops", intOption(1, 100), AGENT_DEFAULTS.maxTurns)
    .option("--max-tokens <n>", "token budget of one turn", intOption(1, 32768), AGENT_DEFAULTS.maxTokens)
    .option("--tool-choice <choice>", `auto or required (${TOOL_CHOICE_DEFAULT_HELP})`, choiceOption(["auto", "required"] as const))
    .option("--call-policy <policy>", `how calls are drawn out: ${CALL_POLICIES.join(", ")}`, choiceOption(CALL_POLICIES), CALL_POLICY_DEFAULTS.policy)
    .option("--thinking <on|off>", "let the model think first", choiceOption(["on", "off"] as const), AGENT_DEFAULTS.thinking ? "on" : "off")
    .option("--transcript <file>", "append the run's record to this JSONL file")
    .option("--test-timeout <ms>", "time limit of one test run", intOption(100, 600_000), SANDBOX_DEFAULTS.testTimeoutMs)
    .option("--threads <n>", threadsHelp(), intOption(1, 1024))
    .option("--context-size <n>", `tokens the context holds (default: ${RUNTIME_DEFAULTS.contextSize})`, intOption(256, MAX_CONTEXT_SIZE))
    .option("--keep-workspace", "keep the run's folder (its path is in the record)")
    .option("--json", "print the run's record as JSON instead of the summary")
    .option("--unsafe-no-sandbox", UNSAFE_NO_SANDBOX_HELP)
    .action(async (flags: AgentFlags) => {
      if (flags.transcript !== undefined) checkOutputFile("--transcript", flags.transcript);
      const run = await runTask({
        taskDir: flags.task,
        model: flags.model,
        mode: flags.mode,
        seed: flags.seed,
        maxTurns: flags.maxTurns,
        maxTokens: flags.maxTokens,
        toolChoice: await agentToolChoice(flags),
        callPolicy: flags.callPolicy,
        thinking: flags.thinking === "on",
        transcript: flags.transcript,
        limits: { testTimeoutMs: flags.testTimeout, ...(flags.unsafeNoSandbox ? { sandbox: "off" as const } : {}) },
        threads: flags.threads,
        standIns: makeStandIn,
        contextSize: flags.contextSize,
        keepWorkspace: flags.keepWorkspace ?? false,
      });
      process.stdout.write(`${flags.json ? JSON.stringify(run) : formatRunSummary(run, flags.transcript)}\n`);
    });
}

/** The flag, else the shared rule; a replay model (recorded text) keeps the harness default. */
async function agentToolChoice(flags: AgentFlags): Promise<"auto" | "required"> {
  if (flags.toolChoice !== undefined || flags.model.startsWith("replay:")) return flags.toolChoice ?? AGENT_DEFAULTS.toolChoice;
  return (await toolChoiceFor(undefined, flags.model)) === "required" ? "required" : "auto";
}
