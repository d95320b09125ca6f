// Owns: checking a GenerateRequest and filling in its defaults; bad caller input throws a QtcException here,
// before any sequence is taken.

import { randomInt } from "node:crypto";
import { fail } from "../errors.js";
import { resolveFormat, type ToolCallFormat } from "../formats/index.js";
import { leastCallTokens } from "../grammar/index.js";
import { normalizeToolChoice, type CompiledTools } from "../tools/index.js";
import type { ToolChoice } from "../tools/types.js";
import { GENERATE_DEFAULTS } from "./defaults.js";
import { MAX_TOP_LOGPROBS } from "./token-logprobs.js";
import type { GenerateRequest, GenerationMode } from "./types.js";

/** A request with every default applied. */
export interface ResolvedRequest {
  toolChoice: ToolChoice;
  mode: GenerationMode;
  parallel: boolean;
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  seed: number;
  thinking: boolean;
  thinkingBudget: number;
  /** The request's format, resolved once (the object is passed down, never looked up again). */
  format: ToolCallFormat;
  jumpForward: boolean;
  maxCalls: number;
  /** Repeats of a short span that stop a loop (see RepeatGuard), or false (off). Absent: the default. */
  repeatGuard?: number | false;
}

function number(value: unknown, name: string, min: number, max: number, integer: boolean): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    fail("invalid_option", `${name} must be ${integer ? "a whole number" : "a number"} from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function boolean(value: unknown, name: string): boolean {
  if (typeof value !== "boolean") fail("invalid_option", `${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

/** normalizeToolChoice, for a caller whose bad input throws: a QtcException `invalid_tool_choice`. */
export function resolveToolChoice(choice: unknown, tools: CompiledTools | undefined): ToolChoice {
  const normalized = normalizeToolChoice(tools, choice);
  if (!normalized.ok) fail(normalized.error.code, normalized.error.message);
  return normalized.value;
}

/**
 * Constrained mode, under a tool choice that demands a call: refuse a budget below a sound lower bound of the
 * cheapest call's tokens (`budget_too_small`): the turn could only run to its limit and end with nothing. Run it
 * after the grammar check, so a schema that cannot compile is reported as what it is.
 */
export function checkCallBudget(tools: CompiledTools | undefined, req: ResolvedRequest): void {
  if (req.mode !== "constrained") return;
  const { toolChoice, format, thinking, maxTokens } = req;
  const least = tools && leastCallTokens(tools.tools, { format, toolChoice, thinking });
  if (least === undefined || maxTokens >= least) return;
  const which = typeof toolChoice === "object" ? `a call to "${toolChoice.name}"` : "any call";
  fail("budget_too_small", `maxTokens ${maxTokens} is too small for ${which} under tool choice ${JSON.stringify(toolChoice)}: the cheapest takes at least ${least} tokens; raise maxTokens to ${least} or more`);
}

/** Tokens the turn forces when it ends a thinking phase itself (`</think>` and the blank line after it). */
const THINK_CLOSE_TOKENS = 3;

/**
 * The thinking budget, lowered so that the call the tool choice requires still fits after it: under `required`
 * or a named tool, the phase leaves room for the cheapest call (a sound lower bound the grammar compiler works
 * out) plus the forced `</think>`. A client that asks for `max_tokens − 1` of thinking (Claude Code does) would
 * otherwise leave no room for the call it demands. Other tool choices keep the budget asked.
 */
export function reserveCallInThinking(tools: CompiledTools | undefined, req: ResolvedRequest): number {
  const { toolChoice, format, thinking, maxTokens, thinkingBudget } = req;
  if (!thinking || !tools || (toolChoice !== "required" && typeof toolChoice !== "object")) return thinkingBudget;
  const least = leastCallTokens(tools.tools, { format, toolChoice, thinking });
  if (least === undefined) return thinkingBudget;
  return Math.max(0, Math.min(thinkingBudget, maxTokens - least - THINK_CLOSE_TOKENS));
}

/** Apply defaults and check ranges. `defaultFormat` is the runtime's format. */
export function resolveRequest(req: GenerateRequest, tools: CompiledTools | undefined, defaultFormat: ToolCallFormat): ResolvedRequest {
  if (typeof req !== "object" || req === null) fail("invalid_option", "a generate request must be an object");
  const d = GENERATE_DEFAULTS;
  const mode = req.mode ?? d.mode;
  if (mode !== "constrained" && mode !== "unconstrained") {
    fail("invalid_option", `mode must be "constrained" or "unconstrained", got ${JSON.stringify(mode)}`);
  }
  if (req.format !== undefined && typeof req.format !== "string" && (typeof req.format !== "object" || req.format === null)) {
    fail("unknown_format", `format must be a format id or a format object, got ${JSON.stringify(req.format)}`);
  }
  const format = resolveFormat(req.format, defaultFormat);
  const maxTokens = number(req.maxTokens ?? d.maxTokens, "maxTokens", 1, 1_000_000, true);
  const thinking = boolean(req.thinking ?? d.thinking, "thinking");
  const thinkingBudget =
    req.thinkingBudget === undefined
      ? Math.floor(maxTokens * d.thinkingShare)
      : number(req.thinkingBudget, "thinkingBudget", 1, maxTokens, true);
  for (const [token, value] of Object.entries(req.logitBias ?? {})) {
    if (!/^\d+$/.test(token)) fail("invalid_option", `logitBias keys must be token ids, got "${token}"`);
    number(value, `logitBias[${token}]`, -100, 100, false);
  }
  if (req.logprobs !== undefined) number(req.logprobs, "logprobs", 0, MAX_TOP_LOGPROBS, true);
  const toolChoice = resolveToolChoice(req.toolChoice ?? d.toolChoice, tools);
  return {
    toolChoice,
    mode,
    parallel: boolean(req.parallel ?? d.parallel, "parallel"),
    maxTokens,
    temperature: number(req.temperature ?? d.temperature, "temperature", 0, 100, false),
    topP: number(req.topP ?? d.topP, "topP", 0, 1, false),
    topK: number(req.topK ?? d.topK, "topK", 0, 1_000_000, true),
    seed: req.seed === undefined ? randomInt(0, 2 ** 32 - 1) : number(req.seed, "seed", 0, 2 ** 32 - 1, true),
    thinking,
    thinkingBudget,
    format,
    jumpForward: boolean(req.jumpForward ?? d.jumpForward, "jumpForward"),
    maxCalls: d.maxCalls,
    repeatGuard: req.repeatGuard === undefined || req.repeatGuard === false ? (req.repeatGuard ?? d.repeatGuard) : number(req.repeatGuard, "repeatGuard", 2, 1_000_000, true),
  };
}
