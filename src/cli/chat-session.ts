// Owns: the turn logic of `qtc chat`: one user message answered in each mode, every call shown as it is judged
// (valid or rejected, and why) and its result, then the model's next step, until a turn makes no call.

import type { ChatMessage } from "../prompt/index.js";
import type { GenerateResult, GenerationMode } from "../runtime/types.js";
import type { ToolChoice, ToolInput } from "../tools/types.js";
import { terminalText } from "./terminal-text.js";

/** What runs a valid call: the harness tools in a workspace copy, or nothing (a tools file declares only). */
export type CallRunner = (name: string, args: Record<string, unknown>) => Promise<string>;

export interface ChatSessionOptions {
  generate: (request: {
    messages: ChatMessage[];
    tools: ToolInput[];
    toolChoice: ToolChoice;
    mode: GenerationMode;
    maxTokens: number;
    seed?: number;
  }) => Promise<GenerateResult>;
  tools: ToolInput[];
  modes: readonly GenerationMode[];
  toolChoice: ToolChoice;
  maxTokens: number;
  /** Model turns per user message before the chat stops the chain of calls. */
  maxSteps: number;
  seed?: number;
  /** Runs a valid call; undefined when the tools have no implementation here. */
  run?: CallRunner;
  /** Where each line goes (stdout in the CLI); control characters in it are already escaped (terminal-text.ts). */
  print: (line: string) => void;
  system?: string;
}

/** Most characters of a tool result shown on the terminal (the model still gets all of it). */
const SHOWN_RESULT_CHARS = 300;

const clip = (text: string) => (text.length > SHOWN_RESULT_CHARS ? `${text.slice(0, SHOWN_RESULT_CHARS)}… (${text.length} chars)` : text);
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ⏎ ");

/** A chat: one message history per mode, so the modes can be compared side by side on the same prompts. */
export function createChatSession(opts: ChatSessionOptions): { send(text: string): Promise<void> } {
  // Every line carries model output or a tool's result (workspace files): none reaches the terminal raw.
  const o = { ...opts, print: (line: string) => opts.print(terminalText(line)) };
  const histories = new Map<GenerationMode, ChatMessage[]>(
    o.modes.map((mode) => [mode, o.system === undefined ? [] : [{ role: "system", content: o.system }]]),
  );

  async function answer(mode: GenerationMode, messages: ChatMessage[]): Promise<void> {
    const tag = o.modes.length > 1 ? `[${mode}] ` : "";
    for (let step = 0; step < o.maxSteps; step++) {
      const result = await o.generate({ messages: [...messages], tools: o.tools, toolChoice: o.toolChoice, mode, maxTokens: o.maxTokens, seed: o.seed });
      if (result.content.trim() !== "") o.print(`${tag}assistant: ${oneLine(result.content.trim())}`);
      const rejected = result.errors.map((e) => e.raw);
      messages.push({
        role: "assistant",
        content: [result.content, ...rejected].filter((s) => s.trim() !== "").join("\n"),
        ...(result.toolCalls.length ? { tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) } : {}),
      });
      for (const error of result.errors) {
        o.print(`${tag}call ${error.name ?? "?"} rejected (${error.reason}): ${oneLine(error.message)}`);
      }
      for (const call of result.toolCalls) {
        o.print(`${tag}call ${call.name} ${call.arguments} valid`);
        const content = o.run ? await o.run(call.name, call.parsedArguments as Record<string, unknown>) : "(not run: the tools file declares this tool but qtc chat has no implementation of it)";
        o.print(`${tag}  result: ${oneLine(clip(content))}`);
        messages.push({ role: "tool", tool_call_id: call.id, content });
      }
      // A rejected block gets its error as the tool result, as the harness does, so the model can correct it.
      for (const error of result.errors) messages.push({ role: "tool", content: error.message });
      const calls = result.toolCalls.length + result.errors.length;
      o.print(`${tag}(${result.finishReason}, ${result.usage.completionTokens} tokens, ${result.timings.decodeTokensPerSecond.toFixed(1)} tok/s)`);
      if (calls === 0 || !o.run) return;
    }
    o.print(`${tag}(stopped after ${o.maxSteps} steps; --max-steps raises it)`);
  }

  return {
    async send(text: string): Promise<void> {
      for (const mode of o.modes) {
        const messages = histories.get(mode)!;
        messages.push({ role: "user", content: text });
        await answer(mode, messages);
      }
    },
  };
}
