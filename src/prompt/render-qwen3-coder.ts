// Owns: the message loop of Qwen3-Coder's chat template (the qwen3coder format). The template has no
// thinking: `reasoning_content` is not rendered and `thinking` changes nothing.

import { QWEN3_TOKENS, type ToolCallFormat } from "../formats/index.js";
import type { TemplateMessage } from "./messages.js";
import { pythonStrip } from "./python-json.js";
import { writePastCalls } from "./render-calls.js";
import { writeCoderToolsSection } from "./render-tools.js";
import { PromptBuilder } from "./segments.js";
import type { TemplateTool } from "./template-tools.js";

const { imStart, imEnd, toolResponseOpen, toolResponseClose } = QWEN3_TOKENS;
const START = imStart.text;
const END = imEnd.text;

/** The system text the template uses when tools are given without a system message. */
export const QWEN3_CODER_DEFAULT_SYSTEM = "You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.";

export interface Qwen3CoderRenderSettings {
  format: ToolCallFormat;
  addGenerationPrompt: boolean;
}

/** The whole prompt as Qwen3-Coder's chat template renders it, as markup and content segments. */
export function renderQwen3Coder(
  messages: readonly TemplateMessage[],
  tools: readonly TemplateTool[],
  settings: Qwen3CoderRenderSettings,
): PromptBuilder {
  const system = messages[0]!.role === "system" ? messages[0]!.content : undefined;
  const loop = system === undefined ? messages : messages.slice(1);
  const out = new PromptBuilder();
  if (system !== undefined) out.markup(`${START}system\n`).content(system);
  else if (tools.length > 0) out.markup(`${START}system\n${QWEN3_CODER_DEFAULT_SYSTEM}`);
  if (tools.length > 0) writeCoderToolsSection(out, tools, settings.format);
  if (system !== undefined || tools.length > 0) out.markup(`${END}\n`);

  loop.forEach((m, i) => {
    if (m.role === "assistant" && m.calls.length > 0) {
      out.markup(`${START}assistant`);
      const text = pythonStrip(m.content);
      if (text !== "") out.markup("\n").content(text).markup("\n");
      writePastCalls(out, m.calls, settings.format, text !== "");
      out.markup(`${END}\n`);
    } else if (m.role === "tool") {
      // The template opens the user turn only when a previous message exists and is not a tool message.
      if (i > 0 && loop[i - 1]!.role !== "tool") out.markup(`${START}user\n`);
      out.markup(`${toolResponseOpen.text}\n`).content(m.content).markup(`\n${toolResponseClose.text}\n`);
      if (i === loop.length - 1 || loop[i + 1]!.role !== "tool") out.markup(`${END}\n`);
    } else {
      out.markup(`${START}${m.role}\n`).content(m.content).markup(`${END}\n`);
    }
  });
  if (settings.addGenerationPrompt) out.markup(`${START}assistant\n`);
  return out;
}
