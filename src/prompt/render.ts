// Owns: renderPrompt, the one entry point that turns messages and tools into the prompt text the model's own
// chat template would produce (the template the format names: Qwen3 for hermes, Qwen3-Coder for qwen3coder,
// Qwen3.5 for qwen35),
// byte for byte.

import { fail } from "../errors.js";
import { resolveFormat, type FormatId, type ToolCallFormat } from "../formats/index.js";
import type { ToolDefinition, ToolInput } from "../tools/types.js";
import { toTemplateMessages, type TemplateMessage } from "./messages.js";
import { renderQwen3 } from "./render-qwen3.js";
import { renderQwen3Coder } from "./render-qwen3-coder.js";
import { renderQwen35, renderQwen36 } from "./render-qwen35.js";
import { QWEN38_EFFORTS, renderQwen38, type TemplateEffort } from "./render-qwen38.js";
import type { PromptBuilder, PromptSegment } from "./segments.js";
import { toTemplateTools } from "./template-tools.js";
import type { TemplateTool } from "./template-tools.js";
import type { ChatMessage } from "./types.js";

export interface RenderPromptOptions {
  /** The conversation, in the OpenAI chat shape. Must not be empty. */
  messages: readonly ChatMessage[];
  /** Tools offered to the model (OpenAI, Anthropic, bare or normalized shape). Default: none (no tools section). */
  tools?: readonly (ToolInput | ToolDefinition)[];
  /** Tool-call format (id or object); it names its template: `hermes` = Qwen3's, `qwen3coder` = Qwen3-Coder's, `qwen35` = Qwen3.5's. Default: "hermes". */
  format?: FormatId | ToolCallFormat;
  /**
   * Qwen3 thinking. `false` renders the template with `enable_thinking=false`: the generation prompt gets an
   * empty think block (Qwen3.5's opens one when true). Ignored by the Qwen3-Coder template. Default: true.
   */
  thinking?: boolean;
  /** End with the assistant header, ready for the model to continue. Default: true. */
  addGenerationPrompt?: boolean;
  /**
   * The template's reasoning level (`reasoning_effort`), for templates that have levels (Qwen3.8: xhigh, medium,
   * low; read only while `thinking` is on). Templates without levels ignore it. Default: the template's own (xhigh).
   */
  reasoningEffort?: TemplateEffort;
  /**
   * `preserve_thinking`, for templates that read it: true keeps the reasoning of earlier turns in the prompt,
   * false drops it before the last user query. Templates that do not read it ignore it. Default: the template's
   * own (Qwen3.8: true; Qwen3.6: false).
   */
  preserveThinking?: boolean;
}

/** Defaults of {@link RenderPromptOptions}. */
export const RENDER_PROMPT_DEFAULTS = Object.freeze({
  format: "hermes" as FormatId,
  thinking: true,
  addGenerationPrompt: true,
});

interface TemplateSettings {
  format: ToolCallFormat;
  thinking: boolean;
  addGenerationPrompt: boolean;
  reasoningEffort?: TemplateEffort;
  preserveThinking?: boolean;
}

type TemplateRenderer = (messages: readonly TemplateMessage[], tools: readonly TemplateTool[], settings: TemplateSettings) => PromptBuilder;

/** The chat templates qtc renders, by the name a format gives in `template`. */
const TEMPLATES: Readonly<Record<string, TemplateRenderer>> = Object.freeze({
  qwen3: renderQwen3,
  "qwen3-coder": renderQwen3Coder,
  "qwen3.5": renderQwen35,
  "qwen3.6": renderQwen36,
  "qwen3.8": renderQwen38,
});

function templateOf(format: ToolCallFormat): TemplateRenderer {
  const renderer = Object.hasOwn(TEMPLATES, format.template) ? TEMPLATES[format.template] : undefined;
  if (!renderer) fail("unknown_format", `format "${format.id}" names template "${format.template}"; known: ${Object.keys(TEMPLATES).join(", ")}`);
  return renderer;
}

function flag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") fail("invalid_option", `${name} must be a boolean`);
  return value;
}

/**
 * The prompt text for a conversation, byte-identical to what the model's Jinja chat template renders
 * through transformers' `apply_chat_template(..., tokenize=False)` (proved by the golden fixtures in
 * test/fixtures/prompt). Throws `invalid_messages`, `invalid_tools`, `unknown_format` or `invalid_option`
 * for bad input (a value nested deeper than MAX_RENDER_DEPTH is `invalid_messages` / `invalid_tools`).
 *
 * Where the template would fail, qtc renders instead: an assistant `content` of null or absent is treated
 * as "" (the templates need a string); a system message after the first, which the Qwen3.5/3.6/3.8 templates refuse,
 * is rendered in place as a system turn (as Qwen3's template does); for qwen3coder, past-call arguments given as JSON text are decoded
 * once (its template iterates an object). Integer-valued floats print as integers (see python-json.ts).
 */
export function renderPrompt(options: RenderPromptOptions): string {
  return render(options).text();
}

/**
 * The same prompt as {@link renderPrompt}, as segments: `markup` is the template's own text (its markers are
 * special tokens), `content` is the caller's (to be tokenized as plain text, whatever it spells). Joined,
 * the segments' texts are exactly renderPrompt's string.
 */
export function renderPromptSegments(options: RenderPromptOptions): readonly PromptSegment[] {
  return render(options).segments;
}

function render(options: RenderPromptOptions): PromptBuilder {
  const format = resolveFormat(options.format ?? RENDER_PROMPT_DEFAULTS.format);
  const messages = toTemplateMessages(options.messages);
  const tools = toTemplateTools(options.tools);
  const thinking = flag(options.thinking, "thinking", RENDER_PROMPT_DEFAULTS.thinking);
  const addGenerationPrompt = flag(options.addGenerationPrompt, "addGenerationPrompt", RENDER_PROMPT_DEFAULTS.addGenerationPrompt);
  const effort = options.reasoningEffort;
  if (effort !== undefined && !(QWEN38_EFFORTS as readonly string[]).includes(effort)) {
    fail("invalid_option", `reasoningEffort must be one of ${QWEN38_EFFORTS.join(", ")}; got ${JSON.stringify(effort)}`);
  }
  const preserve = options.preserveThinking === undefined ? {} : { preserveThinking: flag(options.preserveThinking, "preserveThinking", true) };
  return templateOf(format)(messages, tools, { format, thinking, addGenerationPrompt, ...(effort ? { reasoningEffort: effort } : {}), ...preserve });
}
