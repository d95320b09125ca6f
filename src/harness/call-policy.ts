// Owns: the call policies of the agent loop: sampler-level answers to a model that never calls a tool. Each
// says, per turn, which tools are offered, which tool choice and logit bias the request carries, and whether
// a call ends the run.

import { DEFAULT_FORMAT, resolveFormat, type FormatId, type ToolCallFormat } from "../formats/index.js";
import { CALL_POLICY_DEFAULTS, FINISH_TOOL as SHARED_FINISH_TOOL, type CallPolicy, planCall } from "../tools/call-policy.js";
import type { ToolChoice } from "../tools/types.js";
import { HARNESS_TOOLS, type HarnessTool } from "./tools.js";

// The policies themselves live in src/tools/ so that qtc serve applies the same ones (imports run downhill).
export { CALL_POLICIES, CALL_POLICY_DEFAULTS, type CallPolicy, isCallPolicy, parseCallPolicy } from "../tools/call-policy.js";

/** The extra tool of `finish-tool`: its call is the run's final answer. */
export const FINISH_TOOL: HarnessTool = SHARED_FINISH_TOOL;

export interface TurnPlan {
  tools: readonly HarnessTool[];
  toolChoice: ToolChoice;
  logitBias?: Record<number, number>;
}

/**
 * What turn `index` (0-based) asks for under `policy`, given the run's own tool choice and its tool-call format:
 * `open-bias` biases that format's open tag, whose id differs between vocabularies (Qwen3.5's `<tool_call>` is
 * not Qwen3's). Default format: DEFAULT_FORMAT (a model that does not say its format).
 */
export function planTurn(policy: CallPolicy, index: number, toolChoice: ToolChoice, format: FormatId | ToolCallFormat = DEFAULT_FORMAT, openBias = CALL_POLICY_DEFAULTS.openBias): TurnPlan {
  const plan = planCall(policy, index, toolChoice, resolveFormat(format).open.token, openBias);
  return {
    tools: plan.addFinish ? [...HARNESS_TOOLS, FINISH_TOOL] : HARNESS_TOOLS,
    toolChoice: plan.toolChoice,
    ...(plan.logitBias ? { logitBias: plan.logitBias } : {}),
  };
}

/** True when a call ends the run as its final answer (the `finish` tool of `finish-tool`). */
export function isFinishCall(policy: CallPolicy, name: string): boolean {
  return policy === "finish-tool" && name === FINISH_TOOL.function.name;
}

/**
 * The same policy applied to one request with the caller's own tools (`qtc run`: one turn, turn 1): the tools
 * (plus `finish` under `finish-tool`), the tool choice and the logit bias to send (on `format`'s open tag).
 */
export function planRequest<T>(policy: CallPolicy, tools: readonly T[] | undefined, toolChoice: ToolChoice, format: FormatId | ToolCallFormat = DEFAULT_FORMAT, index = 0): { tools: (T | HarnessTool)[] | undefined; toolChoice: ToolChoice; logitBias?: Record<number, number> } {
  const plan = planTurn(policy, index, toolChoice, format);
  return {
    tools: policy === "finish-tool" ? [...(tools ?? []), FINISH_TOOL] : tools ? [...tools] : undefined,
    toolChoice: plan.toolChoice,
    ...(plan.logitBias ? { logitBias: plan.logitBias } : {}),
  };
}
