// Owns: what the API routes' reasoning fields mean to the chat template: OpenAI's `reasoning_effort` and Responses'
// `reasoning.effort` as thinking on/off plus the template's level, Anthropic's thinking budget as a level, and
// `chat_template_kwargs` (only the variables qtc passes; any other key is a 400 naming it).

import { REASONING_EFFORTS, type TemplateEffort } from "../prompt/render-qwen38.js";
import type { GenerateRequest } from "../runtime/types.js";
import { badRequest } from "./api-error.js";

export type ReasoningFields = Pick<GenerateRequest, "thinking" | "reasoningEffort" | "preserveThinking">;

const EFFORT_LIST = Object.keys(REASONING_EFFORTS).map((e) => `"${e}"`).join(", ");

/**
 * An API effort as thinking and the template's level (REASONING_EFFORTS; docs/server.md, "Reasoning effort").
 * Absent: {}.
 */
export function reasoningOfEffort(effort: unknown, param: string): ReasoningFields {
  if (effort === undefined || effort === null) return {};
  if (typeof effort === "string" && Object.hasOwn(REASONING_EFFORTS, effort)) {
    const { thinking, level } = REASONING_EFFORTS[effort]!;
    return level ? { thinking, reasoningEffort: level } : { thinking };
  }
  throw badRequest(`${param} must be one of ${EFFORT_LIST}; got ${JSON.stringify(effort)}.`, param);
}

/** Anthropic thinking budgets (tokens) at or under which each level applies; above the last, xhigh. */
export const ANTHROPIC_BUDGET_LEVELS: ReadonlyArray<{ atMost: number; level: TemplateEffort }> = Object.freeze([
  { atMost: 2048, level: "low" },
  { atMost: 8192, level: "medium" },
]);

/** Anthropic's `thinking.budget_tokens` as the template's level (see ANTHROPIC_BUDGET_LEVELS). */
export function levelOfBudget(budget: number): TemplateEffort {
  return ANTHROPIC_BUDGET_LEVELS.find((l) => budget <= l.atMost)?.level ?? "xhigh";
}

/** The template variables `chat_template_kwargs` may set. */
export const TEMPLATE_KWARGS = ["enable_thinking", "preserve_thinking", "reasoning_effort"] as const;

/**
 * `chat_template_kwargs` (vLLM's and llama.cpp's field) as request fields. `enable_thinking` and `reasoning_effort`
 * win over the top-level `reasoning_effort` (they name the template's own variables); an unknown key is a 400 that
 * names it, never silently dropped.
 */
export function templateKwargsOf(raw: unknown, param = "chat_template_kwargs"): ReasoningFields {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw badRequest(`${param} must be an object.`, param);
  const out: ReasoningFields = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const at = `${param}.${key}`;
    if (key === "enable_thinking" || key === "preserve_thinking") {
      if (typeof value !== "boolean") throw badRequest(`${at} must be true or false.`, at);
      if (key === "enable_thinking") out.thinking = value;
      else out.preserveThinking = value;
    } else if (key === "reasoning_effort") {
      if (value === "low" || value === "medium" || value === "xhigh") out.reasoningEffort = value;
      else throw badRequest(`${at} must be "low", "medium" or "xhigh" (the template's levels); got ${JSON.stringify(value)}.`, at);
    } else {
      throw badRequest(`${at} is not a template variable qtc passes; it knows ${TEMPLATE_KWARGS.join(", ")}. Remove ${key}.`, at);
    }
  }
  return out;
}
