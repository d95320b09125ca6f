// Owns: the call policies every product applies (bench, run, agent and qtc serve): sampler-level answers to a model
// that never calls a tool. Each says, for one turn, which tool choice and logit bias the request carries and
// whether a `finish` tool joins the tools (whose call is then the final answer).

import { fail } from "../errors.js";
import type { ToolChoice, ToolInput } from "./types.js";

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

/** The extra tool of `finish-tool`: its call is the final answer. */
export const FINISH_TOOL = Object.freeze({
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
}) as Extract<ToolInput, { type: "function" }>;

export function isCallPolicy(s: string): s is CallPolicy {
  return (CALL_POLICIES as readonly string[]).includes(s);
}

/** Check a policy name (bad caller input throws `invalid_option`). */
export function parseCallPolicy(s: string): CallPolicy {
  if (!isCallPolicy(s)) fail("invalid_option", `unknown call policy "${s}"; use one of ${CALL_POLICIES.join(", ")}`);
  return s;
}

/** What one turn asks for under a policy. */
export interface CallPlan {
  toolChoice: ToolChoice;
  logitBias?: Record<number, number>;
  /** The `finish` tool joins the turn's tools. */
  addFinish: boolean;
}

/**
 * What turn `index` (0-based) asks for under `policy`, given the run's own tool choice and the token that opens
 * a call in the run's format (what `open-bias` biases).
 */
export function planCall(policy: CallPolicy, index: number, toolChoice: ToolChoice, openToken: number, openBias = CALL_POLICY_DEFAULTS.openBias): CallPlan {
  switch (policy) {
    case "auto":
      return { toolChoice, addFinish: false };
    case "required-first":
      return { toolChoice: index === 0 ? "required" : toolChoice, addFinish: false };
    case "finish-tool":
      return { toolChoice: "required", addFinish: true };
    case "open-bias":
      return { toolChoice, logitBias: { [openToken]: openBias }, addFinish: false };
  }
}
