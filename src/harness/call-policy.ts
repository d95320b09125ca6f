// Owns: the call policies of the agent loop: sampler-level answers to a model that never calls a tool. Each
// says, per turn, which tools are offered, which tool choice and logit bias the request carries, and whether
// a call ends the run.

import { fail } from "../errors.js";
import { hermes } from "../formats/hermes.js";
import type { ToolChoice } from "../tools/types.js";
import { HARNESS_TOOLS, type HarnessTool } from "./tools.js";

export const CALL_POLICIES = ["auto", "required-first", "finish-tool", "open-bias"] as const;
/**
 * `auto`: the run's tool choice on every turn. `required-first`: `required` on turn 1, then the run's tool
 * choice. `finish-tool`: a `finish` tool is offered, every turn is `required`, and a `finish` call is the final
 * answer. `open-bias`: the run's tool choice, with a logit bias on the call's open tag.
 */
export type CallPolicy = (typeof CALL_POLICIES)[number];

export const CALL_POLICY_DEFAULTS = Object.freeze({
  /** Default: "auto". */
  policy: "auto" as CallPolicy,
  /** Logit bias `open-bias` adds to the open tag's token. Default: 5. */
  openBias: 5,
});

/** The extra tool of `finish-tool`: its call is the run's final answer. */
export const FINISH_TOOL: HarnessTool = Object.freeze({
  type: "function",
  function: Object.freeze({
    name: "finish",
    description: "Finish the task: give the final one-line summary. Call it once the tests pass.",
    parameters: Object.freeze({
      type: "object",
      properties: Object.freeze({ answer: Object.freeze({ type: "string", description: "One-line summary of the fix." }) }),
      required: Object.freeze(["answer"]),
      additionalProperties: false,
    }),
  }),
}) as HarnessTool;

export interface TurnPlan {
  tools: readonly HarnessTool[];
  toolChoice: ToolChoice;
  logitBias?: Record<number, number>;
}

export function isCallPolicy(s: string): s is CallPolicy {
  return (CALL_POLICIES as readonly string[]).includes(s);
}

/** Check a policy name (bad caller input throws `invalid_option`). */
export function parseCallPolicy(s: string): CallPolicy {
  if (!isCallPolicy(s)) fail("invalid_option", `unknown call policy "${s}"; use one of ${CALL_POLICIES.join(", ")}`);
  return s;
}

/** What turn `index` (0-based) asks for under `policy`, given the run's own tool choice. */
export function planTurn(policy: CallPolicy, index: number, toolChoice: ToolChoice, openBias = CALL_POLICY_DEFAULTS.openBias): TurnPlan {
  switch (policy) {
    case "auto":
      return { tools: HARNESS_TOOLS, toolChoice };
    case "required-first":
      return { tools: HARNESS_TOOLS, toolChoice: index === 0 ? "required" : toolChoice };
    case "finish-tool":
      return { tools: [...HARNESS_TOOLS, FINISH_TOOL], toolChoice: "required" };
    case "open-bias":
      return { tools: HARNESS_TOOLS, toolChoice, logitBias: { [hermes.open.token]: openBias } };
  }
}

/** True when a call ends the run as its final answer (the `finish` tool of `finish-tool`). */
export function isFinishCall(policy: CallPolicy, name: string): boolean {
  return policy === "finish-tool" && name === FINISH_TOOL.function.name;
}

/**
 * The same policy applied to one request with the caller's own tools (`qtc run`: one turn, turn 1): the tools
 * (plus `finish` under `finish-tool`), the tool choice and the logit bias to send.
 */
export function planRequest<T>(policy: CallPolicy, tools: readonly T[] | undefined, toolChoice: ToolChoice, index = 0): { tools: (T | HarnessTool)[] | undefined; toolChoice: ToolChoice; logitBias?: Record<number, number> } {
  const plan = planTurn(policy, index, toolChoice);
  return {
    tools: policy === "finish-tool" ? [...(tools ?? []), FINISH_TOOL] : tools ? [...tools] : undefined,
    toolChoice: plan.toolChoice,
    ...(plan.logitBias ? { logitBias: plan.logitBias } : {}),
  };
}
