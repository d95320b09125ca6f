// Owns: the call policies on the server (`qtc serve --call-policy`, the `x-qtc-call-policy` header per request):
// the shared policies of src/tools/call-policy.ts applied to one request that carries tools, and the `finish`
// tool's call turned back into the answer text a client expects.

import { FORMATS, type FormatId } from "../formats/index.js";
import type { GenerateEvent, GenerateRequest, GenerateResult } from "../runtime/types.js";
import { CALL_POLICIES, type CallPolicy, FINISH_TOOL, isCallPolicy, planCall } from "../tools/call-policy.js";
import type { ToolInput } from "../tools/types.js";
import { ApiError } from "./api-error.js";

/** The request header that overrides the server's call policy for one request. */
export const CALL_POLICY_HEADER = "x-qtc-call-policy";

/** The policy a request runs under: its header's, else the server's. A bad header value is a 400 naming it. */
export function requestPolicy(header: unknown, serverPolicy: CallPolicy): CallPolicy {
  if (header === undefined) return serverPolicy;
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value === "string" && isCallPolicy(value.trim())) return value.trim() as CallPolicy;
  throw new ApiError(400, "invalid_request", `The ${CALL_POLICY_HEADER} header must be one of ${CALL_POLICIES.join(", ")}; got ${JSON.stringify(String(value).slice(0, 64))}.`, CALL_POLICY_HEADER);
}

/** A request after its policy: what to generate, and the name of the `finish` tool when one was added. */
export interface PolicyApplied {
  request: GenerateRequest;
  finishTool?: string;
}

/**
 * Apply a policy to a request (its tool choice already defaulted). Only a request with tools under a tool choice
 * the policy may change is touched: `none` and a named tool are the client's explicit word. `required-first`
 * makes the first turn of a conversation (no assistant turn yet) `required`; `finish-tool` adds a `finish` tool
 * and requires a call (under `auto` or `required`), and is refused (400 naming `constraintParam`) for a request
 * whose answer is constrained; `open-bias` biases the open tag under `auto`. `constraintParam`: the request's field
 * that constrains its answer. Default: "response_format".
 */
export function applyCallPolicy(request: GenerateRequest, policy: CallPolicy, format: string | undefined, constraintParam = "response_format"): PolicyApplied {
  const choice = request.toolChoice ?? "auto";
  if (policy === "auto" || !request.tools?.length || (choice !== "auto" && choice !== "required")) return { request };
  const turn = request.messages.some((m) => m.role === "assistant") ? 1 : 0;
  const openToken = (FORMATS[(format ?? "hermes") as FormatId] ?? FORMATS.hermes).open.token;
  const plan = planCall(policy, turn, choice, openToken);
  if (plan.addFinish && (request.constraint !== undefined || request.responseSchema !== undefined)) refuseConstrainedFinish(constraintParam);
  if (plan.logitBias && choice !== "auto") return { request };
  const out: GenerateRequest = { ...request, toolChoice: plan.toolChoice };
  if (plan.logitBias) out.logitBias = { ...request.logitBias, ...plan.logitBias };
  if (!plan.addFinish) return { request: out };
  const name = freeFinishName(request.tools);
  out.tools = [...request.tools, { ...FINISH_TOOL, function: { ...FINISH_TOOL.function, name, description: "Give your final answer to the user (instead of plain text). Call it when no other tool is needed." } }];
  return { request: out, finishTool: name };
}

/**
 * `finish-tool` turns the answer into a `finish` call's free-text argument, which no answer constraint holds: a
 * request that constrains its answer is refused, naming the field, rather than answered unconstrained (issue 52).
 */
function refuseConstrainedFinish(param: string): never {
  throw new ApiError(
    400,
    "invalid_request",
    `The call policy finish-tool cannot hold ${param}: its answer is the free text of a finish call. Send ${CALL_POLICY_HEADER}: auto with this request, or remove ${param}.`,
    param,
  );
}

/** `finish`, unless the client has a tool of that name (then `finish_answer`, `qtc_finish`, …). */
function freeFinishName(tools: readonly ToolInput[]): string {
  const taken = new Set(tools.map((t) => ("function" in t ? t.function.name : t.name)));
  for (const name of ["finish", "finish_answer", "qtc_finish"]) if (!taken.has(name)) return name;
  let i = 2;
  while (taken.has(`qtc_finish_${i}`)) i++;
  return `qtc_finish_${i}`;
}

/** The answer a `finish` call carries. */
function answerOf(args: Record<string, unknown> | undefined): string {
  const answer = args?.answer;
  return typeof answer === "string" ? answer : "";
}

/**
 * A turn's result with its `finish` call turned into answer text: the client asked for an answer, not for qtc's
 * tool. The turn ends `stop` unless other calls remain.
 */
export function finishAsAnswer(result: GenerateResult, finishTool: string): GenerateResult {
  const finish = result.toolCalls.filter((c) => c.name === finishTool);
  if (finish.length === 0) return result;
  const rest = result.toolCalls.filter((c) => c.name !== finishTool);
  const answers = finish.map((c) => answerOf(c.parsedArguments as Record<string, unknown> | undefined));
  const content = [result.content, ...answers].filter((t) => t !== "").join(result.content ? "\n" : "");
  return { ...result, content, toolCalls: rest, finishReason: rest.length > 0 ? "tool_calls" : result.finishReason === "tool_calls" ? "stop" : result.finishReason };
}

/**
 * The same, on a stream: the `finish` call's start and deltas are held back, the call becomes a text delta, and
 * the other calls are numbered from 0 without it (clients index `tool_calls` deltas by it).
 */
export async function* finishAsAnswerStream(events: AsyncIterable<GenerateEvent>, finishTool: string): AsyncGenerator<GenerateEvent> {
  const held = new Set<number>();
  const renumber = (index: number) => index - [...held].filter((h) => h < index).length;
  let sawText = false;
  for await (const event of events) {
    if (event.type === "tool-call-start" && event.name === finishTool) held.add(event.index);
    else if (event.type === "tool-call-delta" && held.has(event.index)) continue;
    else if (event.type === "tool-call" && held.has(event.index)) {
      const answer = answerOf(event.call.parsedArguments as Record<string, unknown> | undefined);
      if (answer) yield { type: "text-delta", text: sawText ? `\n${answer}` : answer };
      sawText = sawText || answer !== "";
    } else if (event.type === "done") yield { type: "done", result: finishAsAnswer(event.result, finishTool) };
    else if (event.type === "tool-call-start" || event.type === "tool-call-delta" || event.type === "tool-call") yield { ...event, index: renumber(event.index) };
    else {
      if (event.type === "text-delta" && event.text) sawText = true;
      yield event;
    }
  }
}
