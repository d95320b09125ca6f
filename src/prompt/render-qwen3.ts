// Owns: the message loop of Qwen3's chat template (the hermes format): system turn with the tools section,
// reasoning kept only after the last user query, tool responses grouped into one user turn, and the
// generation prompt with the empty think block when thinking is off.

import { QWEN3_TOKENS, type ToolCallFormat } from "../formats/index.js";
import type { TemplateMessage } from "./messages.js";
import { pythonLstrip, pythonRstrip, pythonStrip } from "./python-json.js";
import { writePastCalls } from "./render-calls.js";
import { writeHermesToolsSection } from "./render-tools.js";
import { PromptBuilder } from "./segments.js";
import type { TemplateTool } from "./template-tools.js";

const { imStart, imEnd, thinkOpen, thinkClose, toolResponseOpen, toolResponseClose } = QWEN3_TOKENS;
const START = imStart.text;
const END = imEnd.text;

/** Index of the last user message that is a real query (not a message that is one whole tool-response block). */
function lastQueryIndex(messages: readonly TemplateMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    if (!(m.content.startsWith(toolResponseOpen.text) && m.content.endsWith(toolResponseClose.text))) return i;
  }
  return messages.length - 1;
}

/** Reasoning and answer of an assistant turn, split the way the template does. */
function splitReasoning(m: Extract<TemplateMessage, { role: "assistant" }>): { content: string; reasoning: string } {
  if (m.reasoning !== null) return { content: m.content, reasoning: m.reasoning };
  if (!m.content.includes(thinkClose.text)) return { content: m.content, reasoning: "" };
  const parts = m.content.split(thinkClose.text);
  const content = pythonLstrip(parts[parts.length - 1]!, "\n");
  const before = pythonRstrip(parts[0]!, "\n").split(thinkOpen.text);
  return { content, reasoning: pythonLstrip(before[before.length - 1]!, "\n") };
}

export interface Qwen3RenderSettings {
  format: ToolCallFormat;
  thinking: boolean;
  addGenerationPrompt: boolean;
}

/** The whole prompt as Qwen3's chat template renders it, as markup and content segments. */
export function renderQwen3(
  messages: readonly TemplateMessage[],
  tools: readonly TemplateTool[],
  settings: Qwen3RenderSettings,
): PromptBuilder {
  const first = messages[0]!;
  const out = new PromptBuilder();
  if (tools.length > 0) {
    out.markup(`${START}system\n`);
    if (first.role === "system") out.content(first.content).markup("\n\n");
    writeHermesToolsSection(out, tools, settings.format);
    out.markup(`${END}\n`);
  } else if (first.role === "system") {
    out.markup(`${START}system\n`).content(first.content).markup(`${END}\n`);
  }
  const lastQuery = lastQueryIndex(messages);
  messages.forEach((m, i) => {
    const isLast = i === messages.length - 1;
    if (m.role === "user" || (m.role === "system" && i > 0)) {
      out.markup(`${START}${m.role}\n`).content(m.content).markup(`${END}\n`);
    } else if (m.role === "assistant") {
      const { content, reasoning } = splitReasoning(m);
      out.markup(`${START}assistant\n`);
      if (i > lastQuery && (isLast || reasoning !== "")) {
        out.markup(`${thinkOpen.text}\n`).content(pythonStrip(reasoning, "\n")).markup(`\n${thinkClose.text}\n\n`);
        out.content(pythonLstrip(content, "\n"));
      } else {
        out.content(content);
      }
      writePastCalls(out, m.calls, settings.format, content !== "");
      out.markup(`${END}\n`);
    } else if (m.role === "tool") {
      if (i === 0 || messages[i - 1]!.role !== "tool") out.markup(`${START}user`);
      out.markup(`\n${toolResponseOpen.text}\n`).content(m.content).markup(`\n${toolResponseClose.text}`);
      if (isLast || messages[i + 1]!.role !== "tool") out.markup(`${END}\n`);
    }
  });
  if (settings.addGenerationPrompt) {
    out.markup(`${START}assistant\n`);
    if (!settings.thinking) out.markup(`${thinkOpen.text}\n\n${thinkClose.text}\n\n`);
  }
  return out;
}
