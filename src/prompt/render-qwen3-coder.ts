// Owns: the message loop of Qwen3-Coder's chat template (the qwen3coder format). The template has no
// thinking: `reasoning_content` is not rendered and `thinking` changes nothing.

import { QWEN3_TOKENS, type ToolCallFormat } from "../formats/index.js";
import type { TemplateMessage } from "./messages.js";
import { pythonStrip } from "./python-json.js";
import { renderPastCalls } from "./render-calls.js";
import { renderCoderToolsSection } from "./render-tools.js";
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

/** The whole prompt as Qwen3-Coder's chat template renders it. */
export function renderQwen3Coder(
  messages: readonly TemplateMessage[],
  tools: readonly TemplateTool[],
  settings: Qwen3CoderRenderSettings,
): string {
  const system = messages[0]!.role === "system" ? messages[0]!.content : undefined;
  const loop = system === undefined ? messages : messages.slice(1);
  let out = "";
  if (system !== undefined) out += `${START}system\n${system}`;
  else if (tools.length > 0) out += `${START}system\n${QWEN3_CODER_DEFAULT_SYSTEM}`;
  if (tools.length > 0) out += renderCoderToolsSection(tools, settings.format);
  if (system !== undefined || tools.length > 0) out += `${END}\n`;

  loop.forEach((m, i) => {
    if (m.role === "assistant" && m.calls.length > 0) {
      out += `${START}assistant`;
      const text = pythonStrip(m.content);
      if (text !== "") out += `\n${text}\n`;
      out += renderPastCalls(m.calls, settings.format, text !== "");
      out += `${END}\n`;
    } else if (m.role === "tool") {
      // The template opens the user turn only when a previous message exists and is not a tool message.
      if (i > 0 && loop[i - 1]!.role !== "tool") out += `${START}user\n`;
      out += `${toolResponseOpen.text}\n${m.content}\n${toolResponseClose.text}\n`;
      if (i === loop.length - 1 || loop[i + 1]!.role !== "tool") out += `${END}\n`;
    } else {
      out += `${START}${m.role}\n${m.content}${END}\n`;
    }
  });
  if (settings.addGenerationPrompt) out += `${START}assistant\n`;
  return out;
}
