// Owns: the message loop of Qwen3.8's chat template (templates/qwen3.8-27b.jinja, the qwen38 format): a reasoning
// instruction for the effort level first in the system turn, then `<tools>`, then the system prompt; earlier turns'
// reasoning kept unless `preserve_thinking` is false; reasoning read only from `reasoning_content` (a think block
// inside `content` stays content); tool responses grouped as in Qwen3.5's.

import { fail } from "../errors.js";
import { QWEN35_TOKENS } from "../formats/index.js";
import type { TemplateMessage } from "./messages.js";
import { pythonStrip } from "./python-json.js";
import { writePastCalls } from "./render-calls.js";
import { lastQueryIndex, type Qwen35RenderSettings } from "./render-qwen35.js";
import { writeQwen35ToolsSection } from "./render-tools.js";
import { PromptBuilder } from "./segments.js";
import type { TemplateTool } from "./template-tools.js";

const { imStart, imEnd, toolResponseOpen, toolResponseClose } = QWEN35_TOKENS;
const START = imStart.text;
const END = imEnd.text;

/** The reasoning levels Qwen3.8's template accepts, its default first. */
export const QWEN38_EFFORTS = ["xhigh", "medium", "low"] as const;
export type TemplateEffort = (typeof QWEN38_EFFORTS)[number];

/**
 * The reasoning efforts people send (OpenAI's names plus xhigh) as thinking on/off and the template's level:
 * none/minimal turn thinking off; low and medium are the template's levels; high and xhigh its highest (xhigh,
 * which has no `high`). A template without levels reads only on/off.
 */
export const REASONING_EFFORTS: Readonly<Record<string, { thinking: boolean; level?: TemplateEffort }>> = Object.freeze({
  none: { thinking: false },
  minimal: { thinking: false },
  low: { thinking: true, level: "low" },
  medium: { thinking: true, level: "medium" },
  high: { thinking: true, level: "xhigh" },
  xhigh: { thinking: true, level: "xhigh" },
});

/** The line the template writes first in the system turn for each level (`medium` writes none). */
const INSTRUCTIONS: Readonly<Record<TemplateEffort, string>> = Object.freeze({
  xhigh:
    "Reasoning effort is set to xhigh. Please think carefully through the task, validate key assumptions, consider plausible alternatives, and prioritize correctness, consistency, and clarity in the final answer.",
  medium: "",
  low: "Reasoning effort is set to low. Keep your thinking brief and focused, moving directly to the conclusion without unnecessary elaboration.",
});

export interface Qwen38RenderSettings extends Qwen35RenderSettings {
  /** `reasoning_effort`; read only while thinking is on. Default: "xhigh" (the template's). */
  reasoningEffort?: TemplateEffort;
}

/** The whole prompt as Qwen3.8's chat template renders it, as markup and content segments. */
export function renderQwen38(messages: readonly TemplateMessage[], tools: readonly TemplateTool[], settings: Qwen38RenderSettings): PromptBuilder {
  const { format } = settings;
  const { open: thinkOpen, close: thinkClose } = format.think;
  const effort = settings.reasoningEffort ?? "xhigh";
  if (!Object.hasOwn(INSTRUCTIONS, effort)) fail("invalid_option", `reasoningEffort must be one of ${QWEN38_EFFORTS.join(", ")} for Qwen3.8's template`);
  const instruction = settings.thinking ? INSTRUCTIONS[effort] : "";
  const first = messages[0]!;
  const system = first.role === "system" ? pythonStrip(first.content) : "";
  const out = new PromptBuilder();
  if (tools.length > 0) {
    out.markup(`${START}system\n`);
    if (instruction) out.markup(`${instruction}\n\n`);
    writeQwen35ToolsSection(out, tools, format);
    if (system) out.markup("\n\n").content(system);
    out.markup(`${END}\n`);
  } else if (system) {
    out.markup(`${START}system\n${instruction ? `${instruction}\n\n` : ""}`).content(system).markup(`${END}\n`);
  } else if (instruction) {
    out.markup(`${START}system\n${instruction}${END}\n`);
  }
  const lastQuery = lastQueryIndex(messages);
  const keepEveryThink = settings.preserveThinking !== false;
  messages.forEach((m, i) => {
    if (m.role === "system") {
      // The template raises on a system message after the first; clients send them (Claude Code), so it is
      // rendered in place as a system turn, as Qwen3's template and the patched templates people run do.
      if (i > 0) out.markup(`${START}system\n`).content(pythonStrip(m.content)).markup(`${END}\n`);
    } else if (m.role === "user") {
      out.markup(`${START}user\n`).content(pythonStrip(m.content)).markup(`${END}\n`);
    } else if (m.role === "assistant") {
      const content = pythonStrip(m.content);
      out.markup(`${START}assistant\n`);
      if (keepEveryThink || i > lastQuery) out.markup(`${thinkOpen.text}\n`).content(pythonStrip(m.reasoning ?? "")).markup(`\n${thinkClose.text}\n\n`);
      out.content(content);
      writePastCalls(out, m.calls, format, content !== "");
      out.markup(`${END}\n`);
    } else {
      if (i > 0 && messages[i - 1]!.role !== "tool") out.markup(`${START}user`);
      out.markup(`\n${toolResponseOpen.text}\n`).content(pythonStrip(m.content)).markup(`\n${toolResponseClose.text}`);
      if (i === messages.length - 1 || messages[i + 1]!.role !== "tool") out.markup(`${END}\n`);
    }
  });
  if (settings.addGenerationPrompt) {
    out.markup(`${START}assistant\n`);
    out.markup(settings.thinking ? `${thinkOpen.text}\n` : `${thinkOpen.text}\n\n${thinkClose.text}\n\n`);
  }
  return out;
}
