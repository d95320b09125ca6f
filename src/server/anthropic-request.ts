// Owns: turning an Anthropic messages body (system, content blocks, tool_use / tool_result history, tools,
// tool_choice, thinking) into a runtime GenerateRequest with OpenAI-shaped ChatMessages.

import type { AssistantToolCall, ChatMessage } from "../prompt/types.js";
import type { GenerateRequest } from "../runtime/types.js";
import type { ToolChoice } from "../tools/types.js";
import { ApiError, badRequest, type ParamHints } from "./api-error.js";
import { levelOfBudget } from "./reasoning-fields.js";
import { choiceName, offerTools, readAnthropicTools } from "./client-tools.js";
import { blockText, HistoryNotes } from "./content-blocks.js";
import {
  checkMaxTokens,
  checkNesting,
  checkToolChoice,
  listNames,
  type Obj,
  type SchemaCheck,
  type ToolChoiceWording,
  requireObject,
  requireString,
} from "./convert-util.js";
import { readStopSequences } from "./stop-sequences.js";
import { constraintOfOpenAIBody } from "./constraint-fields.js";
import { type ResolvedServerOptions, SERVER_DEFAULTS } from "./defaults.js";

export interface AnthropicPlan {
  /** The runtime request, without `signal` (the route adds it). */
  request: GenerateRequest;
  stream: boolean;
  /** The fields library errors are reported against. */
  params: ParamHints;
  /** `stop_sequences`: the answer text ends before the first one. */
  stop: string[];
  /** What qtc left out or changed (tools it cannot run, deferred tools, blocks it cannot show), said in the response. */
  notices: string[];
}

type Ctx = Pick<ResolvedServerOptions, "mode" | "maxTokensLimit"> & Partial<Pick<ResolvedServerOptions, "maxNestingDepth" | "maxTokensCap">> & SchemaCheck;

/** Convert a body that passed ANTHROPIC_MESSAGES_BODY; throws ApiError (400) for anything qtc cannot honour. */
export function anthropicToGenerate(body: Obj, ctx: Ctx): AnthropicPlan {
  checkThread(body.thread);
  const stop = readStopSequences(body.stop_sequences, "stop_sequences", false);
  const declared = readAnthropicTools(body.tools);
  const notes = new HistoryNotes();
  const messages = convertMessages(body.messages as unknown[], ctx.maxNestingDepth ?? SERVER_DEFAULTS.maxNestingDepth, notes);
  const chosen = choiceName(body.tool_choice);
  if (chosen !== undefined) notes.loaded.add(chosen);
  const { tools, names, notices } = offerTools(declared, notes.loaded, ctx);
  const { toolChoice, parallel } = convertToolChoice(body.tool_choice, names);
  const system = systemText(body.system, notes);
  const request: GenerateRequest = {
    messages: system !== undefined ? [{ role: "system", content: system }, ...messages] : messages,
    mode: ctx.mode,
    maxTokens: checkMaxTokens(body.max_tokens as number, ctx, "max_tokens"),
    ...(tools.length ? { tools } : {}),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(parallel !== undefined ? { parallel } : {}),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === "number" ? { topP: body.top_p } : {}),
    ...(typeof body.top_k === "number" ? { topK: body.top_k } : {}),
    ...thinkingOf(body.thinking, body.max_tokens as number),
  };
  const constrained = constraintOfOpenAIBody(body, ctx);
  if (constrained) request.constraint = constrained.constraint;
  return { request, stream: body.stream === true, params: { maxTokens: "max_tokens", ...(constrained ? { responseSchema: constrained.param } : {}) }, stop, notices: [...notices, ...notes.notices()] };
}

/**
 * Message threads (the SDK's `thread` field, which its toolRunner sends): qtc stores no conversations, so a
 * `create` is an ordinary request, and a `continue` is answered with the `thread_not_found` error code, on which the
 * SDK replays the whole history under a new thread. Stateless, at the price of one refused request per turn.
 */
function checkThread(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  const thread = requireObject(raw, "thread");
  if (thread.type === "create") return;
  if (thread.type === "continue") {
    throw new ApiError(404, "not_found", "qtc keeps no message threads; send the whole conversation (thread type \"create\").", "thread", { error_code: "thread_not_found" });
  }
  throw badRequest(`thread.type must be "create" or "continue"; got ${JSON.stringify(thread.type)}.`, "thread.type");
}

function thinkingOf(raw: unknown, maxTokens: number): Pick<GenerateRequest, "thinking" | "thinkingBudget" | "reasoningEffort"> {
  if (raw === undefined) return {};
  const thinking = raw as Obj;
  if (thinking.type === "disabled") return { thinking: false };
  if (thinking.type === "adaptive") return { thinking: true };
  if (thinking.type !== "enabled") {
    throw badRequest(`thinking.type must be "enabled", "disabled" or "adaptive"; got ${JSON.stringify(thinking.type)}.`, "thinking.type");
  }
  const budget = thinking.budget_tokens;
  if (budget === undefined) return { thinking: true };
  if (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1) {
    throw badRequest("thinking.budget_tokens must be a whole number ≥ 1.", "thinking.budget_tokens");
  }
  if (budget >= maxTokens) throw badRequest("thinking.budget_tokens must be less than max_tokens.", "thinking.budget_tokens");
  // The budget also picks the template's level where it has levels (Qwen3.8; docs/server.md, "Reasoning effort").
  return { thinking: true, thinkingBudget: budget, reasoningEffort: levelOfBudget(budget) };
}

function systemText(raw: unknown, notes: HistoryNotes): string | undefined {
  if (raw === undefined) return undefined;
  return blocksText(raw, "system", notes);
}

/** Anthropic's tool_choice mapped onto a ToolChoice (shape only: `any` is required), then checked by the one normalizer. */
function convertToolChoice(raw: unknown, names: string[]): { toolChoice?: ToolChoice; parallel?: boolean } {
  if (raw === undefined) return {};
  const choice = raw as Obj;
  const parallel = choice.disable_parallel_tool_use === true ? false : undefined;
  const check = (mapped: ToolChoice) => checkToolChoice(mapped, names, (name) => wording(name, names));
  switch (choice.type) {
    case "auto":
      return { toolChoice: check("auto"), parallel };
    case "none":
      return { toolChoice: check("none") };
    case "any":
      return { toolChoice: check("required"), parallel };
    case "tool":
      return { toolChoice: check({ name: requireString(choice.name, "tool_choice.name") }), parallel };
    default:
      throw new ApiError(400, "invalid_tool_choice", `tool_choice.type must be "auto", "any", "tool" or "none"; got ${JSON.stringify(choice.type)}.`, "tool_choice.type");
  }
}

function wording(name: string | undefined, names: string[]): ToolChoiceWording {
  return {
    shape: { message: 'tool_choice must be {"type": "auto" | "any" | "none"} or {"type": "tool", "name": …}.', param: "tool_choice" },
    no_tools: { message: 'tool_choice "any" needs tools; send tools or drop tool_choice.', param: "tool_choice" },
    unknown_name: { message: `tool_choice names "${name}", which is not among the tools: ${listNames(names)}.`, param: "tool_choice.name" },
  };
}

/**
 * Anthropic turns to OpenAI-shaped messages: a user turn's `tool_result` blocks become `tool` messages (in
 * order, named after the `tool_use` they answer), its other blocks a user message; an assistant turn's
 * `thinking`, `text` and `tool_use` blocks become one assistant message with `reasoning_content` and `tool_calls`.
 * A `system` turn (Claude Code sends them inside `messages` for models it does not know) stays where it is: the
 * Qwen3 templates render a system turn after the first as `<|im_start|>system` in place.
 */
function convertMessages(raw: unknown[], maxDepth: number, notes: HistoryNotes): ChatMessage[] {
  const toolNames = new Map<string, string>();
  const out: ChatMessage[] = [];
  raw.forEach((m, i) => {
    const p = `messages[${i}]`;
    const msg = m as Obj;
    if (msg.role === "user") out.push(...userTurn(msg.content, `${p}.content`, toolNames, notes));
    else if (msg.role === "assistant") out.push(assistantTurn(msg.content, `${p}.content`, toolNames, maxDepth, notes));
    else if (msg.role === "system") out.push({ role: "system", content: blocksText(msg.content, `${p}.content`, notes) });
    else throw badRequest(`${p}.role must be "user", "assistant" or "system"; got ${JSON.stringify(msg.role)}.`, `${p}.role`);
  });
  return out;
}

function userTurn(content: unknown, p: string, toolNames: Map<string, string>, notes: HistoryNotes): ChatMessage[] {
  if (typeof content === "string") return [{ role: "user", content }];
  if (!Array.isArray(content)) throw badRequest(`${p} must be a string or an array of content blocks.`, p);
  const out: ChatMessage[] = [];
  const texts: string[] = [];
  content.forEach((b, j) => {
    const bp = `${p}[${j}]`;
    const block = requireObject(b, bp);
    if (block.type === "tool_result") {
      const id = requireString(block.tool_use_id, `${bp}.tool_use_id`);
      let text = block.content === undefined ? "" : blocksText(block.content, `${bp}.content`, notes);
      if (block.is_error === true) text = `Error: ${text}`;
      const name = toolNames.get(id);
      out.push({ role: "tool", content: text, tool_call_id: id, ...(name ? { name } : {}) });
    } else {
      const text = blockText(block, bp, notes);
      if (text !== undefined) texts.push(text);
    }
  });
  if (texts.length) out.push({ role: "user", content: texts.join("\n") });
  return out;
}

function assistantTurn(content: unknown, p: string, toolNames: Map<string, string>, maxDepth: number, notes: HistoryNotes): ChatMessage {
  if (typeof content === "string") return { role: "assistant", content };
  if (!Array.isArray(content)) throw badRequest(`${p} must be a string or an array of content blocks.`, p);
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: AssistantToolCall[] = [];
  content.forEach((b, j) => {
    const bp = `${p}[${j}]`;
    const block = requireObject(b, bp);
    if (block.type === "thinking") reasoning.push(requireString(block.thinking, `${bp}.thinking`));
    else if (block.type === "redacted_thinking") return; // encrypted for Anthropic's models: nothing a local model can read
    else if (block.type === "tool_use") {
      const id = requireString(block.id, `${bp}.id`);
      const name = requireString(block.name, `${bp}.name`);
      const input = requireObject(block.input ?? {}, `${bp}.input`);
      checkNesting(input, maxDepth, `${bp}.input`);
      toolNames.set(id, name);
      notes.loaded.add(name); // a tool called earlier is loaded, deferred or not
      calls.push({ id, type: "function", function: { name, arguments: JSON.stringify(input) } });
    } else {
      const text = blockText(block, bp, notes);
      if (text !== undefined) texts.push(text);
    }
  });
  return {
    role: "assistant",
    content: texts.length ? texts.join("\n") : null,
    ...(reasoning.length ? { reasoning_content: reasoning.join("\n") } : {}),
    ...(calls.length ? { tool_calls: calls } : {}),
  };
}

/** A string, or content blocks as text joined by newlines (system prompts, system turns and tool results). */
function blocksText(raw: unknown, p: string, notes: HistoryNotes): string {
  if (typeof raw === "string") return raw;
  if (!Array.isArray(raw)) throw badRequest(`${p} must be a string or an array of content blocks.`, p);
  const texts: string[] = [];
  raw.forEach((b, j) => {
    const text = blockText(requireObject(b, `${p}[${j}]`), `${p}[${j}]`, notes);
    if (text !== undefined) texts.push(text);
  });
  return texts.join("\n");
}
