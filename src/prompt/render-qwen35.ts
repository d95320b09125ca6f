// Owns: the message loop of Qwen3.5's chat template (the qwen35 format) and Qwen3.6's (qwen36: the same bytes
// unless its `preserve_thinking` switch is true): `<tools>` first in the system
// turn, every message's text trimmed, the think block written only into the turns after the last user query,
// tool responses grouped into one user turn, and a generation prompt that opens the think block.

import { QWEN35_TOKENS, type ToolCallFormat } from "../formats/index.js";
import type { TemplateMessage } from "./messages.js";
import { pythonLstrip, pythonRstrip, pythonStrip } from "./python-json.js";
import { writePastCalls } from "./render-calls.js";
import { writeQwen35ToolsSection } from "./render-tools.js";
import { PromptBuilder } from "./segments.js";
import type { TemplateTool } from "./template-tools.js";

const { imStart, imEnd, toolResponseOpen, toolResponseClose } = QWEN35_TOKENS;
const START = imStart.text;
const END = imEnd.text;

export interface Qwen35RenderSettings {
  format: ToolCallFormat;
  thinking: boolean;
  addGenerationPrompt: boolean;
  /** `preserve_thinking` as passed; only Qwen3.6's template reads it (true keeps every turn's think block). */
  preserveThinking?: boolean;
}

/** Index of the last user message that is a real query (its trimmed text is not one whole tool-response block). */
export function lastQueryIndex(messages: readonly TemplateMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    const text = pythonStrip(m.content);
    if (!(text.startsWith(toolResponseOpen.text) && text.endsWith(toolResponseClose.text))) return i;
  }
  // The template raises "No user query found"; qtc renders as if the last message were the query.
  return messages.length - 1;
}

/** Reasoning and answer of an assistant turn, split from the trimmed content the way the template does. */
function splitReasoning(m: Extract<TemplateMessage, { role: "assistant" }>, format: ToolCallFormat): { content: string; reasoning: string } {
  const content = pythonStrip(m.content);
  const { open, close } = format.think;
  if (m.reasoning !== null) return { content, reasoning: pythonStrip(m.reasoning) };
  if (!content.includes(close.text)) return { content, reasoning: "" };
  const parts = content.split(close.text);
  const before = pythonRstrip(parts[0]!, "\n").split(open.text);
  return { content: pythonLstrip(parts[parts.length - 1]!, "\n"), reasoning: pythonStrip(pythonLstrip(before[before.length - 1]!, "\n")) };
}

/** Qwen3.6's template: Qwen3.5's, whose think guard also passes when `preserve_thinking` is true. */
export function renderQwen36(messages: readonly TemplateMessage[], tools: readonly TemplateTool[], settings: Qwen35RenderSettings): PromptBuilder {
  return renderQwen35(messages, tools, settings, settings.preserveThinking === true);
}

/** The whole prompt as Qwen3.5's chat template renders it, as markup and content segments. */
export function renderQwen35(messages: readonly TemplateMessage[], tools: readonly TemplateTool[], settings: Qwen35RenderSettings, keepEveryThink = false): PromptBuilder {
  const { format } = settings;
  const { open: thinkOpen, close: thinkClose } = format.think;
  const first = messages[0]!;
  const system = first.role === "system" ? pythonStrip(first.content) : undefined;
  const out = new PromptBuilder();
  if (tools.length > 0) {
    out.markup(`${START}system\n`);
    writeQwen35ToolsSection(out, tools, format);
    if (system) out.markup("\n\n").content(system);
    out.markup(`${END}\n`);
  } else if (system !== undefined) {
    out.markup(`${START}system\n`).content(system).markup(`${END}\n`);
  }
  const lastQuery = lastQueryIndex(messages);
  messages.forEach((m, i) => {
    const isLast = i === messages.length - 1;
    if (m.role === "system") {
      // The template raises on a system message after the first; clients send them (Claude Code), so it is
      // rendered in place as a system turn, as Qwen3's template and the patched templates people run do.
      if (i > 0) out.markup(`${START}system\n`).content(pythonStrip(m.content)).markup(`${END}\n`);
    } else if (m.role === "user") {
      out.markup(`${START}user\n`).content(pythonStrip(m.content)).markup(`${END}\n`);
    } else if (m.role === "assistant") {
      const { content, reasoning } = splitReasoning(m, format);
      out.markup(`${START}assistant\n`);
      if (keepEveryThink || i > lastQuery) out.markup(`${thinkOpen.text}\n`).content(reasoning).markup(`\n${thinkClose.text}\n\n`);
      out.content(content);
      writePastCalls(out, m.calls, format, pythonStrip(content) !== "");
      out.markup(`${END}\n`);
    } else {
      // The template opens the user turn only after a message that is not a tool response (never at index 0).
      if (i > 0 && messages[i - 1]!.role !== "tool") out.markup(`${START}user`);
      out.markup(`\n${toolResponseOpen.text}\n`).content(pythonStrip(m.content)).markup(`\n${toolResponseClose.text}`);
      if (isLast || messages[i + 1]!.role !== "tool") out.markup(`${END}\n`);
    }
  });
  if (settings.addGenerationPrompt) {
    out.markup(`${START}assistant\n`);
    out.markup(settings.thinking ? `${thinkOpen.text}\n` : `${thinkOpen.text}\n\n${thinkClose.text}\n\n`);
  }
  return out;
}
