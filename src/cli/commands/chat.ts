// Owns: the `qtc chat` command: an interactive terminal chat with tools (a tools file, or the harness tools in a
// copy of a workspace folder), showing each call, whether it is valid and its result, in one mode or both.

import { createInterface } from "node:readline";
import type { Command } from "commander";
import { fail } from "../../errors.js";
import { executeTool, HARNESS_TOOLS, SYSTEM_PROMPT } from "../../harness/index.js";
import { createWorkspace, removeWorkspace, type Workspace } from "../../harness/workspace.js";
import { GPU_CHOICES, MODEL_SPEC_HELP, type GpuChoice } from "../../model/index.js";
import { GENERATE_DEFAULTS, RUNTIME_DEFAULTS } from "../../runtime/defaults.js";
import { createRuntime } from "../../engines/index.js";
import { makeStandIn } from "../../training/stand-ins.js";
import type { GenerationMode } from "../../runtime/types.js";
import { loadToolsFile } from "../../tools/index.js";
import type { ToolInput } from "../../tools/types.js";
import { createChatSession } from "../chat-session.js";
import { terminalText } from "../terminal-text.js";
import { choiceOption, intOption, MAX_CONTEXT_SIZE, threadsHelp, TOOL_CHOICE_DEFAULT_HELP, toolChoiceFor } from "../options.js";
import { UNSAFE_NO_SANDBOX_HELP } from "./agent.js";

interface ChatFlags {
  model: string;
  tools?: string;
  workspace?: string;
  mode: GenerationMode | "both";
  toolChoice?: string;
  maxTokens: number;
  maxSteps: number;
  seed?: number;
  threads?: number;
  contextSize: number;
  gpu: GpuChoice;
  unsafeNoSandbox?: boolean;
}

const MODES = ["constrained", "unconstrained", "both"] as const;

export function registerChat(program: Command): Command {
  return program
    .command("chat")
    .description("Chat with a model in the terminal, with tools: see each call, whether it is valid, and its result")
    .option("-m, --model <model>", `model: ${MODEL_SPEC_HELP}`, RUNTIME_DEFAULTS.model)
    .option("--tools <file>", "tools JSON to offer (calls are judged and shown, not run)")
    .option("--workspace <dir>", "offer the 5 harness tools, acting in a copy of this folder (tests run sandboxed)")
    .option("--mode <mode>", `${MODES.join("|")} (both: every message answered in each mode, side by side)`, choiceOption(MODES), GENERATE_DEFAULTS.mode)
    .option("--tool-choice <choice>", `auto|required|none|NAME (${TOOL_CHOICE_DEFAULT_HELP})`)
    .option("--max-tokens <n>", "token budget of one model turn", intOption(1, 32768), GENERATE_DEFAULTS.maxTokens)
    .option("--max-steps <n>", "model turns per message while it keeps calling tools", intOption(1, 100), 4)
    .option("--seed <n>", "sampling seed (default: random)", intOption(0, 2 ** 32 - 1))
    .option("--threads <n>", threadsHelp(), intOption(1, 1024))
    .option("--context-size <n>", "context size in tokens", intOption(256, MAX_CONTEXT_SIZE), RUNTIME_DEFAULTS.contextSize)
    .option("--gpu <gpu>", `${GPU_CHOICES.join("|")}`, choiceOption(GPU_CHOICES), RUNTIME_DEFAULTS.gpu)
    .option("--unsafe-no-sandbox", UNSAFE_NO_SANDBOX_HELP)
    .action(async (flags: ChatFlags) => {
      if ((flags.tools === undefined) === (flags.workspace === undefined)) fail("invalid_option", "give exactly one of --tools FILE or --workspace DIR");
      const tools: ToolInput[] = flags.tools !== undefined ? [...loadToolsFile(flags.tools).tools] : [...(HARNESS_TOOLS as ToolInput[])];
      const toolChoice = await toolChoiceFor(flags.toolChoice, flags.model);
      const ws = flags.workspace === undefined ? undefined : await createWorkspace(flags.workspace, { limits: flags.unsafeNoSandbox ? { sandbox: "off" } : {} });
      const rt = await createRuntime({ model: flags.model, threads: flags.threads, contextSize: flags.contextSize, gpu: flags.gpu, sequences: 1, standIns: makeStandIn });
      try {
        const print = (line: string) => void process.stdout.write(`${terminalText(line)}\n`);
        const modes: GenerationMode[] = flags.mode === "both" ? ["unconstrained", "constrained"] : [flags.mode];
        print(`qtc chat: model ${rt.modelInfo.name}${rt.modelInfo.synthetic ? " (synthetic: random weights)" : ""}, ${modes.join(" and ")}, tool choice ${typeof toolChoice === "object" ? toolChoice.name : toolChoice}${ws ? `, tools act in ${ws.root}` : ""}; an empty line or Ctrl-D ends it`);
        const session = createChatSession({
          generate: (request) => rt.generate(request),
          tools,
          modes,
          toolChoice,
          maxTokens: flags.maxTokens,
          maxSteps: flags.maxSteps,
          seed: flags.seed,
          run: ws ? runner(ws) : undefined,
          system: ws ? SYSTEM_PROMPT : undefined,
          print,
        });
        await readLines((text) => session.send(text));
      } finally {
        await rt.close();
        if (ws) await removeWorkspace(ws);
      }
    });
}

const runner = (ws: Workspace) => async (name: string, args: Record<string, unknown>) => (await executeTool(ws, name, args)).text;

/** Feed each non-empty line to `onLine`, one at a time, until an empty line or the end of input. */
async function readLines(onLine: (text: string) => Promise<void>): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stdin.isTTY ? process.stdout : undefined, terminal: process.stdin.isTTY === true });
  if (process.stdin.isTTY) rl.setPrompt("you> ");
  if (process.stdin.isTTY) rl.prompt();
  try {
    for await (const line of rl) {
      if (line.trim() === "") break;
      await onLine(line.trim());
      if (process.stdin.isTTY) rl.prompt();
    }
  } finally {
    rl.close();
  }
}
