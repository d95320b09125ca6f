// Owns: the `qtc run` command: one assistant turn with tools, printed as JSON (--json) or a short summary.

import type { Command } from "commander";
import { fail } from "../../errors.js";
import { FORMAT_IDS, type FormatId, type ToolCallFormat } from "../../formats/index.js";
import { GPU_CHOICES, MODEL_SPEC_HELP, type GpuChoice } from "../../model/index.js";
import { REASONING_EFFORTS, type ChatMessage } from "../../prompt/index.js";
import { GENERATE_DEFAULTS, RUNTIME_DEFAULTS } from "../../runtime/defaults.js";
import { generateOnce, promptMessages, type GenerateOnceResult } from "../../engines/run-once.js";
import { makeStandIn } from "../../training/stand-ins.js";
import type { GenerateRequest, GenerationMode } from "../../runtime/types.js";
import { loadToolsFile } from "../../tools/index.js";
import type { JsonSchema } from "../../tools/types.js";
import { choiceOption, intOption, MAX_CONTEXT_SIZE, numberOption, repeatGuardOption, threadsHelp, threadsText, TOOL_CHOICE_DEFAULT_HELP, toolChoiceFlag, toolChoiceFor } from "../options.js";
import { readTextFile } from "../read-file.js";
import { CALL_POLICIES, CALL_POLICY_DEFAULTS, planRequest, type CallPolicy } from "../../harness/call-policy.js";

interface RunFlags {
  model: string;
  callPolicy: CallPolicy;
  tools?: string;
  prompt?: string;
  messages?: string;
  system?: string;
  mode: GenerationMode;
  format?: FormatId;
  toolChoice?: string;
  maxTokens: number;
  seed?: number;
  temperature: number;
  thinking: "on" | "off";
  reasoningEffort?: string;
  jumpForward: "on" | "off";
  repeatGuard: number | false;
  threads?: number;
  contextSize: number;
  gpu: GpuChoice;
  json?: boolean;
  responseSchema?: string;
  lora?: string;
}

const MODES = ["constrained", "unconstrained"] as const;

export function registerRun(program: Command): Command {
  return program
    .command("run")
    .description("Generate one assistant turn with tools and print its text, calls and errors")
    .option("-m, --model <model>", `model: ${MODEL_SPEC_HELP}, or an engine: llama-server:URL, openai:URL`, RUNTIME_DEFAULTS.model)
    .option("--tools <file>", "tools JSON: an OpenAI, Anthropic or bare {name, parameters} list (default: none)")
    .option("--prompt <text>", "the user message")
    .option("--messages <file>", "a JSON array of chat messages (OpenAI shape) instead of --prompt")
    .option("--system <text>", "a system message put before --prompt")
    .option("--mode <mode>", `${MODES.join("|")}`, choiceOption(MODES), GENERATE_DEFAULTS.mode)
    .option("--format <format>", `tool-call format: ${FORMAT_IDS.join("|")} (default: from the model's chat template)`, choiceOption(FORMAT_IDS))
    .option("--tool-choice <choice>", `auto|required|none|NAME (${TOOL_CHOICE_DEFAULT_HELP})`)
    .option("--call-policy <policy>", `how a call is drawn out: ${CALL_POLICIES.join(", ")} (required-first: required on this turn; finish-tool: adds a finish tool, required)`, choiceOption(CALL_POLICIES), CALL_POLICY_DEFAULTS.policy)
    .option("--max-tokens <n>", "token budget of the turn", intOption(1), GENERATE_DEFAULTS.maxTokens)
    .option("--seed <n>", "sampling seed (default: random)", intOption(0, 2 ** 32 - 1))
    .option("--temperature <t>", "sampling temperature (0 = greedy)", numberOption(0, 100), GENERATE_DEFAULTS.temperature)
    .option("--thinking <on|off>", "let the model think first", choiceOption(["on", "off"] as const), GENERATE_DEFAULTS.thinking ? "on" : "off")
    .option("--reasoning-effort <level>", `${Object.keys(REASONING_EFFORTS).join("|")}: none/minimal turn thinking off, the others on with the template's level where it has levels (Qwen3.8: low, medium, xhigh; high = xhigh) (default: --thinking)`, choiceOption(Object.keys(REASONING_EFFORTS)))
    .option("--jump-forward <on|off>", "feed text the grammar forces in one batch", choiceOption(["on", "off"] as const), "on")
    .option("--repeat-guard <n|off>", "stop a loop: a 1-3 token span repeated n times in a row (a phrase: n/3) closes the value and call, or ends the text", repeatGuardOption, GENERATE_DEFAULTS.repeatGuard)
    .option("--threads <n>", threadsHelp(), intOption(1, 1024))
    .option("--context-size <n>", "context size in tokens", intOption(64, MAX_CONTEXT_SIZE), RUNTIME_DEFAULTS.contextSize)
    .option("--gpu <gpu>", `${GPU_CHOICES.join("|")}`, choiceOption(GPU_CHOICES), RUNTIME_DEFAULTS.gpu)
    .option("--lora <file>", "a LoRA adapter GGUF applied on top of the model (qtc finetune --lora writes one) (default: none)")
    .option("--response-schema <file>", "a JSON Schema file: the answer, when not calls, is JSON that fits it (OpenAI response_format)")
    .option("--json", 'print {"content", "reasoning", "calls", "errors", "finishReason", "usage", "timings", "raw"} (+ "answer" with --response-schema)')
    .action(async (flags: RunFlags) => {
      const tools = flags.tools === undefined ? undefined : loadToolsFile(flags.tools);
      // The synthetic-model rule is about calls; with no tools there is nothing to require.
      const toolChoice = tools ? await toolChoiceFor(flags.toolChoice, flags.model) : toolChoiceFlag(flags.toolChoice ?? GENERATE_DEFAULTS.toolChoice);
      // The tools and tool choice do not depend on the format; open-bias's token does, so it is planned again
      // once the model is loaded and its format known (Qwen3.5's `<tool_call>` id is not Qwen3's).
      const plan = (format?: FormatId | ToolCallFormat) => planRequest(flags.callPolicy, tools?.tools, toolChoice, format);
      const policy = plan(flags.format);
      const request: GenerateRequest = {
        messages: readMessages(flags),
        tools: policy.tools as GenerateRequest["tools"],
        toolChoice: policy.toolChoice,
        ...(policy.logitBias ? { logitBias: policy.logitBias } : {}),
        mode: flags.mode,
        format: flags.format,
        maxTokens: flags.maxTokens,
        seed: flags.seed,
        temperature: flags.temperature,
        ...thinkingOfFlags(flags),
        jumpForward: flags.jumpForward === "on",
        repeatGuard: flags.repeatGuard,
        ...(flags.responseSchema === undefined ? {} : { responseSchema: readResponseSchema(flags.responseSchema) }),
      };
      const out = await generateOnce(
        { model: flags.model, threads: flags.threads, contextSize: flags.contextSize, gpu: flags.gpu, format: flags.format, standIns: makeStandIn, ...(flags.lora === undefined ? {} : { lora: flags.lora }) },
        request,
        (req, format) => withBias(req, plan(format).logitBias),
      );
      process.stdout.write(flags.json ? JSON.stringify(toJson(out), null, 2) + "\n" : summary(out, request));
    });
}

/** --thinking, or --reasoning-effort when given (it says on/off too, and the template's level). */
function thinkingOfFlags(flags: RunFlags): Pick<GenerateRequest, "thinking" | "reasoningEffort"> {
  if (flags.reasoningEffort === undefined) return { thinking: flags.thinking === "on" };
  const { thinking, level } = REASONING_EFFORTS[flags.reasoningEffort]!;
  return level ? { thinking, reasoningEffort: level } : { thinking };
}

/** The request with the policy's logit bias (planned for the model's format) in place of the one planned before. */
function withBias(request: GenerateRequest, logitBias: Record<number, number> | undefined): GenerateRequest {
  const { logitBias: _planned, ...rest } = request;
  return logitBias ? { ...rest, logitBias } : rest;
}

function readMessages(flags: RunFlags): ChatMessage[] {
  if ((flags.prompt === undefined) === (flags.messages === undefined)) {
    fail("invalid_option", "give exactly one of --prompt TEXT or --messages FILE");
  }
  if (flags.prompt !== undefined) return promptMessages(flags.prompt, flags.system);
  if (flags.system !== undefined) fail("invalid_option", "--system goes with --prompt; put the system message in the --messages file");
  const path = flags.messages!;
  const value = readJsonFile(path, "messages file", "invalid_messages");
  const list = Array.isArray(value) ? value : (value as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(list)) fail("invalid_messages", `messages file ${path} must hold a JSON array of messages (or {"messages": [...]})`, { path });
  return list as ChatMessage[];
}

function readResponseSchema(path: string): JsonSchema | boolean {
  const value = readJsonFile(path, "response schema file", "invalid_schema");
  if (typeof value !== "boolean" && (typeof value !== "object" || value === null || Array.isArray(value))) {
    fail("invalid_schema", `response schema file ${path} must hold a JSON Schema (an object or a boolean)`, { path });
  }
  return value as JsonSchema | boolean;
}

/** A JSON file's value; a missing file is `file_not_found`, bad JSON is `badJson`, each naming the file. */
function readJsonFile(path: string, what: string, badJson: "invalid_messages" | "invalid_schema"): unknown {
  const text = readTextFile(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    fail(badJson, `${what} ${path} is not valid JSON: ${(e as Error).message}`, { path });
  }
}

/** The `--json` object (field names are a contract). */
export function toJson({ result }: GenerateOnceResult): Record<string, unknown> {
  return {
    content: result.content,
    reasoning: result.reasoning,
    calls: result.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.parsedArguments })),
    errors: result.errors.map((e) => ({ reason: e.reason, message: e.message, name: e.name, start: e.start, end: e.end })),
    finishReason: result.finishReason,
    usage: result.usage,
    timings: result.timings,
    raw: result.raw,
    ...(result.answer ? { answer: result.answer.ok ? { ok: true, value: result.answer.value } : { ok: false, reason: result.answer.reason, message: result.answer.message } } : {}),
  };
}

function summary({ result, modelInfo, settings }: GenerateOnceResult, request: GenerateRequest): string {
  const choice = typeof request.toolChoice === "object" ? request.toolChoice.name : request.toolChoice;
  const lines = [
    `model ${modelInfo.name}${modelInfo.synthetic ? " (synthetic: random weights)" : ""} · ${result.format} · ${result.mode} · tool choice ${choice} · ${threadsText(settings.threads)}`,
  ];
  if (result.reasoning !== null) lines.push(`reasoning: ${JSON.stringify(result.reasoning)}`);
  if (result.content !== "") lines.push(`content: ${JSON.stringify(result.content)}`);
  for (const call of result.toolCalls) lines.push(`call ${call.name} ${call.arguments}`);
  for (const error of result.errors) lines.push(`error ${error.reason}${error.name ? ` (${error.name})` : ""}: ${error.message}`);
  if (result.answer) lines.push(result.answer.ok ? "answer fits the response schema" : `answer refused (${result.answer.reason}): ${result.answer.message}`);
  const { usage, timings } = result;
  lines.push(
    `finish ${result.finishReason} · ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens (${usage.forcedTokens} forced) · ` +
      `${timings.decodeTokensPerSecond.toFixed(1)} tok/s · first token ${timings.timeToFirstTokenMs.toFixed(0)} ms`,
  );
  return lines.join("\n") + "\n";
}
