// Owns: turning a conversation into training samples, one per assistant turn, rendered by qtc's byte-identical
// chat-template renderer exactly as the model sees that turn at inference (history + generation prompt, then
// the turn's own output), with the assistant span marked.

import { fail } from "../errors.js";
import { renderPromptSegments } from "../prompt/render.js";
import type { PromptSegment } from "../prompt/segments.js";
import type { ChatMessage } from "../prompt/types.js";
import type { Conversation, RenderedSample, TrainingPiece } from "./types.js";

/** What ends an assistant turn in the Qwen3 template; the model must learn to write it. */
const TURN_END = "<|im_end|>";

/**
 * The assistant message as its own turn is rendered: arguments as objects, so the template writes them in the
 * canonical spelling the grammar produces (a JSON string would be copied verbatim, spelled as JSON.stringify).
 */
function asTarget(m: Extract<ChatMessage, { role: "assistant" }>): ChatMessage {
  if (!m.tool_calls?.length) return m;
  return {
    ...m,
    tool_calls: m.tool_calls.map((c) => ({
      ...c,
      function: { name: c.function.name, arguments: typeof c.function.arguments === "string" ? (JSON.parse(c.function.arguments) as Record<string, unknown>) : c.function.arguments },
    })),
  };
}

/** Split segments into pieces at UTF-16 offset `at` (everything before is prompt) and end the span at `end`. */
function toPieces(segments: readonly PromptSegment[], at: number, end: number): TrainingPiece[] {
  const pieces: TrainingPiece[] = [];
  let pos = 0;
  const push = (text: string, special: boolean, assistant: boolean): void => {
    if (text) pieces.push({ text, special, assistant });
  };
  for (const s of segments) {
    const from = pos;
    const to = pos + s.text.length;
    pos = to;
    const special = s.kind === "markup";
    const cuts = [from, Math.min(Math.max(at, from), to), Math.min(Math.max(end, from), to), to];
    push(s.text.slice(0, cuts[1]! - from), special, false);
    push(s.text.slice(cuts[1]! - from, cuts[2]! - from), special, true);
    push(s.text.slice(cuts[2]! - from), special, false);
  }
  return pieces;
}

const codePoints = (s: string): number => [...s].length;

/** One sample per assistant message of the conversation (hermes format, thinking off, as the agent runs). */
export function renderSamples(conv: Conversation): RenderedSample[] {
  const out: RenderedSample[] = [];
  conv.messages.forEach((m, k) => {
    if (m.role !== "assistant") return;
    const history = conv.messages.slice(0, k);
    const base = { tools: conv.tools, format: "hermes" as const, thinking: false };
    const prompt = renderPromptSegments({ ...base, messages: history, addGenerationPrompt: true });
    const full = renderPromptSegments({ ...base, messages: [...history, asTarget(m)], addGenerationPrompt: false });
    const promptText = prompt.map((s) => s.text).join("");
    const text = full.map((s) => s.text).join("");
    if (!text.startsWith(promptText)) fail("internal", `the rendered turn ${k} of ${conv.task} does not continue its own prompt`, { exitCode: 1 });
    const end = text.lastIndexOf(TURN_END) + TURN_END.length;
    if (end < promptText.length + TURN_END.length) fail("internal", `turn ${k} of ${conv.task} has no ${TURN_END}`, { exitCode: 1 });
    out.push({
      task: conv.task,
      message: k,
      text,
      assistant: [codePoints(text.slice(0, promptText.length)), codePoints(text.slice(0, end))],
      pieces: toPieces(full, promptText.length, end),
    });
  });
  return out;
}
