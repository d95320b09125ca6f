// Owns: training data from bench transcripts: keep each run's assistant turns while every block they wrote was
// valid (and the turn was not cut off), drop the rest, and count both.

import { SYSTEM_PROMPT } from "../harness/defaults.js";
import { HARNESS_TOOLS } from "../harness/tools.js";
import type { AgentRun, TurnRecord } from "../harness/types.js";
import type { ChatMessage } from "../prompt/types.js";
import type { Conversation } from "./types.js";

export interface TranscriptSelection {
  /** Keep only runs whose task's tests passed at the end. Default: false. */
  passedOnly?: boolean;
  /** Keep only runs of these task ids (the train half). Default: every task. */
  tasks?: ReadonlySet<string>;
}

export interface TranscriptYield {
  conversations: Conversation[];
  /** Assistant turns kept / dropped (a whole run's turns count as dropped when the run is excluded). */
  keptTurns: number;
  droppedTurns: number;
  /** Runs excluded whole: not in `tasks`, or failed under `passedOnly`. */
  droppedRuns: number;
}

/** A turn is kept when every block it opened was a valid call and it ended on its own (not at the token limit). */
export function isKeptTurn(t: TurnRecord): boolean {
  return t.errors.length === 0 && t.finishReason !== "length";
}

function assistantOf(t: TurnRecord): ChatMessage {
  return {
    role: "assistant",
    content: t.content,
    reasoning_content: t.reasoning,
    ...(t.calls.length
      ? { tool_calls: t.calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }
      : {}),
  };
}

/**
 * The kept prefix of one run: its turns up to the first that is not kept. A later turn's history would hold the
 * rejected block, so everything after the first bad turn is dropped too. Tool results are the transcript's
 * (capped at the harness's transcriptResultChars).
 */
function keptPrefix(run: AgentRun, prompt: string): { messages: ChatMessage[]; kept: number } {
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: prompt },
  ];
  let kept = 0;
  for (const t of run.turns) {
    if (!isKeptTurn(t)) break;
    messages.push(assistantOf(t));
    for (const r of t.results) {
      messages.push({ role: "tool", content: r.content, ...(r.callId ? { tool_call_id: r.callId } : {}), ...(r.name ? { name: r.name } : {}) });
    }
    kept++;
  }
  // A fine-tuning conversation ends on an assistant turn; the results of its last calls teach nothing.
  while (messages.length > 2 && messages[messages.length - 1]!.role === "tool") messages.pop();
  return { messages, kept };
}

/** Conversations from run records; `prompts` maps a task id to its prompt (the record does not hold it). */
export function conversationsFromRuns(runs: readonly AgentRun[], prompts: ReadonlyMap<string, string>, sel: TranscriptSelection = {}): TranscriptYield {
  const out: TranscriptYield = { conversations: [], keptTurns: 0, droppedTurns: 0, droppedRuns: 0 };
  for (const run of runs) {
    const prompt = prompts.get(run.task);
    if (prompt === undefined || (sel.tasks && !sel.tasks.has(run.task)) || (sel.passedOnly && !run.testsPassed)) {
      out.droppedRuns++;
      out.droppedTurns += run.turns.length;
      continue;
    }
    const { messages, kept } = keptPrefix(run, prompt);
    out.keptTurns += kept;
    out.droppedTurns += run.turns.length - kept;
    if (kept > 0) out.conversations.push({ messages, tools: HARNESS_TOOLS.map((t) => structuredClone(t)), task: run.task, source: "transcript" });
  }
  return out;
}
