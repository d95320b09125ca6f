// Owns: stop sequences (OpenAI `stop`, Anthropic `stop_sequences`): reading them from a request, cutting a turn's
// answer text at the first one, cancelling the rest of the turn, and the result that says which one stopped it.

import type { AnswerCheck, GenerateEvent, GenerateRequest, GenerateResult } from "../runtime/types.js";
import { answerConstraintOf, judgeText } from "../runtime/answer-request.js";
import { compileValueValidator } from "../tools/validators.js";
import { badRequest } from "./api-error.js";

/** Bounds on what a client may send, so matching stays cheap per delta. */
export const STOP_LIMITS = Object.freeze({
  /** Sequences per request (OpenAI allows 4; Anthropic names no limit). */
  maxSequences: 16,
  /** UTF-16 units per sequence. */
  maxLength: 256,
});

/** A result cut by a stop sequence carries which one (Anthropic's `stop_sequence`). */
export type StoppableResult = GenerateResult & { stopSequence?: string };

/**
 * The stop sequences of a request: a string or an array of strings (OpenAI), an array (Anthropic). Empty strings
 * are dropped (they would stop before the first character); none at all gives [].
 */
export function readStopSequences(raw: unknown, param: string, allowString: boolean): string[] {
  if (raw === undefined || raw === null) return [];
  const list = typeof raw === "string" && allowString ? [raw] : raw;
  if (!Array.isArray(list) || !list.every((s) => typeof s === "string")) {
    throw badRequest(`${param} must be ${allowString ? "a string or " : ""}an array of strings.`, param);
  }
  if (list.length > STOP_LIMITS.maxSequences) {
    throw badRequest(`${param} has ${list.length} sequences; send at most ${STOP_LIMITS.maxSequences}.`, param);
  }
  const long = list.findIndex((s) => s.length > STOP_LIMITS.maxLength);
  if (long >= 0) throw badRequest(`${param}[${long}] is over ${STOP_LIMITS.maxLength} characters; send a shorter stop sequence.`, `${param}[${long}]`);
  return [...new Set(list.filter((s) => s !== ""))];
}

/**
 * Holds back text that may be the start of a stop sequence, and finds the first complete one. Only the answer
 * text is matched: reasoning and tool calls are not (the grammar owns a call's span, so a stop sequence can
 * never cut a call in half), and text on either side of a call is matched separately.
 */
class StopMatcher {
  #held = "";
  constructor(private readonly stops: readonly string[]) {}

  /** The text that is safe to emit now, and the stop sequence when one completed (the text is cut before it). */
  push(text: string): { emit: string; stopped?: string } {
    const buffer = this.#held + text;
    const hit = this.#firstMatch(buffer);
    if (hit) {
      this.#held = "";
      return { emit: buffer.slice(0, hit.at), stopped: hit.stop };
    }
    const keep = this.#partialSuffix(buffer);
    this.#held = buffer.slice(buffer.length - keep);
    return { emit: buffer.slice(0, buffer.length - keep) };
  }

  /** Text held back that turned out not to be a stop sequence. */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return held;
  }

  #firstMatch(buffer: string): { at: number; stop: string } | undefined {
    let best: { at: number; stop: string } | undefined;
    for (const stop of this.stops) {
      const at = buffer.indexOf(stop);
      if (at >= 0 && (!best || at < best.at)) best = { at, stop };
    }
    return best;
  }

  /** Length of the longest end of `buffer` that begins some stop sequence. */
  #partialSuffix(buffer: string): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, buffer.length); n > longest; n--) {
        if (buffer.endsWith(stop.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }
}

/**
 * The runtime's events with stop sequences applied. At the first stop sequence the turn is cancelled (`cancel`
 * aborts the runtime's signal), the rest of its events are drained, and `done` carries the text up to the stop,
 * the calls made before it, finish reason "stop" and `stopSequence`.
 */
export async function* applyStopSequences(
  events: AsyncIterable<GenerateEvent>,
  stops: readonly string[],
  cancel: () => void,
  judge?: CutAnswerJudge,
): AsyncGenerator<GenerateEvent, void, void> {
  if (stops.length === 0) return yield* events;
  const matcher = new StopMatcher(stops);
  let content = "";
  const calls: GenerateResult["toolCalls"] = [];
  let stopped: string | undefined;
  let last: GenerateResult | undefined;
  for await (const event of events) {
    if (stopped !== undefined) {
      if (event.type === "done") last = event.result;
      continue; // drained: the turn was cancelled at the stop sequence
    }
    if (event.type === "text-delta") {
      const step = matcher.push(event.text);
      if (step.emit) {
        content += step.emit;
        yield { type: "text-delta", text: step.emit };
      }
      if (step.stopped !== undefined) {
        stopped = step.stopped;
        cancel();
      }
      continue;
    }
    if (event.type === "done") {
      const rest = matcher.flush();
      if (rest) yield { type: "text-delta", text: rest };
      yield event;
      return;
    }
    if (event.type === "tool-call-start") {
      const rest = matcher.flush();
      if (rest) {
        content += rest;
        yield { type: "text-delta", text: rest };
      }
    }
    if (event.type === "tool-call") calls.push(event.call);
    yield event;
  }
  if (stopped === undefined) return;
  yield { type: "done", result: stoppedResult(last, content, calls, stopped, judge) };
}

/** Judges the text of an answer a stop sequence cut (see cutAnswerJudge). */
export type CutAnswerJudge = (content: string, stop: string) => AnswerCheck;

/**
 * The judge of a constrained answer cut by a stop sequence, or undefined when the request constrains no answer.
 * The text before the stop is judged as it stands: ok when it still holds the constraint, else refused with reason
 * `stop_sequence` (issue 52: `qtc.answer` is present with every constrained answer, and says how it ended).
 */
export function cutAnswerJudge(request: Pick<GenerateRequest, "responseSchema" | "constraint">): CutAnswerJudge | undefined {
  if (request.constraint === undefined && request.responseSchema === undefined) return undefined;
  return (content, stop) => {
    const { answerSchema, answerConstraint } = answerConstraintOf(request);
    const cut = `the answer was cut at the stop sequence ${JSON.stringify(stop)}`;
    if (answerConstraint) {
      const check = judgeText(content, false, answerConstraint);
      return check.ok ? check : { ok: false, reason: "stop_sequence", message: `${cut}, and the text before it does not hold the constraint: ${check.message}`, constraint: answerConstraint.kind };
    }
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      return { ok: false, reason: "stop_sequence", message: `${cut} before its JSON was complete`, constraint: "jsonSchema" };
    }
    const errors = compileValueValidator(answerSchema as NonNullable<typeof answerSchema>)(value);
    if (!errors) return { ok: true, value, constraint: "jsonSchema" };
    return { ok: false, reason: "stop_sequence", message: `${cut}, and the JSON before it does not fit the response schema`, errors, constraint: "jsonSchema" };
  };
}

/** The result of a turn cut at a stop sequence. Usage is the runtime's (what the model really spent). */
function stoppedResult(last: GenerateResult | undefined, content: string, calls: GenerateResult["toolCalls"], stop: string, judge: CutAnswerJudge | undefined): StoppableResult {
  const base: GenerateResult = last ?? {
    content: "",
    reasoning: null,
    toolCalls: [],
    errors: [],
    finishReason: "stop",
    usage: { promptTokens: 0, completionTokens: 0, forcedTokens: 0 },
    timings: { timeToFirstTokenMs: 0, decodeTokensPerSecond: 0, grammarMs: 0, totalMs: 0 },
    diagnostics: { detected: 0, accepted: 0, rejected: {}, emitted: 0, notes: [] },
    raw: "",
    tokens: [],
    mode: "constrained",
    format: "hermes",
  };
  // The runtime judged the answer on the text past the cut: that verdict no longer applies; the cut text is judged.
  const { answer: _judgedUncut, ...rest } = base;
  const answer = judge && calls.length === 0 ? judge(content, stop) : undefined;
  return { ...rest, content, toolCalls: calls, finishReason: "stop", stopSequence: stop, ...(answer ? { answer } : {}) };
}
