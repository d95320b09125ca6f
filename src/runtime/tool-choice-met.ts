// Owns: the one answer to a turn whose tool choice demands a call (`required`, or a named tool) and that made no
// valid one: `no_valid_call`, whichever engine ran it (issue 52: the local runtime answered 200 with no call, the
// upstream engines 502). Loud, never empty: a client that asked for a call never gets a turn without one.

import { QtcException } from "../errors.js";
import type { ToolChoice } from "../tools/types.js";
import type { GenerateResult } from "./types.js";

/**
 * The error for a finished turn that does not meet its tool choice, else undefined. An aborted turn is the
 * caller's, never judged. The message names the rejected calls by tool and reason (qtc's own verdicts, never the
 * model's text), so it is safe to pass on whatever engine wrote them.
 */
export function unmetToolChoice(result: Pick<GenerateResult, "toolCalls" | "errors" | "finishReason">, choice: ToolChoice | undefined): QtcException | undefined {
  if (result.finishReason === "aborted") return undefined;
  if (choice === "required" && result.toolCalls.length === 0) {
    return noValidCall(`the model wrote no valid tool call under tool_choice "required"${rejectedList(result)}`);
  }
  if (typeof choice === "object" && choice !== null && !result.toolCalls.some((c) => c.name === choice.name)) {
    return noValidCall(`the model wrote no valid call to "${choice.name}", which tool_choice names${rejectedList(result)}`);
  }
  return undefined;
}

function noValidCall(what: string): QtcException {
  const message = `${what}; nothing was returned. Send the request again (another seed may succeed), or use tool_choice "auto" to accept a turn without a call`;
  return new QtcException({ code: "no_valid_call", message }, 1);
}

/** ` (rejected: f: schema, g: truncated)`, at most 8 named; empty when nothing was rejected. */
function rejectedList(result: Pick<GenerateResult, "errors">): string {
  if (result.errors.length === 0) return "";
  const named = result.errors.slice(0, 8).map((e) => `${e.name ?? "(no name)"}: ${e.reason}`);
  const more = result.errors.length > 8 ? `, +${result.errors.length - 8} more` : "";
  return ` (rejected: ${named.join(", ")}${more})`;
}
