// Owns: the repetition guard of a turn: it watches the tokens a turn adds for a span of 1 to REPEAT_MAX_PERIOD
// tokens repeated back to back past a threshold (a loop: " cat cat cat …" inside a string), and says how to stop
// it: under the grammar, the matcher's closing (the value and the call end validly, as the budget guard ends
// them); in free text, the end of the turn. The Turn consults it after each step and notes `repetition_stopped`.

import type { Closable, GuardClose } from "./budget-guard.js";

/** The longest repeated span the guard looks for, in tokens (a sentence or a short table row). */
export const REPEAT_MAX_PERIOD = 32;

/** Spans of up to this many tokens are "short" (a word, a digit and its separator); longer ones are phrases and rows. */
export const REPEAT_SHORT_SPAN = 3;

/**
 * Defaults of the guard. How the threshold was chosen (measured with the real Qwen3 tokenizer, docs/server.md
 * "Loops stopped"): legitimate repetition stays below it. Qwen3 writes each digit as its own token, so a 64-digit
 * zero hash is 64 repeats of a 1-token span and a row of 64 zeros `0, 0, …` 63 repeats of a 3-token span; an
 * 80- to 400-column ruler of `-` or `=` is 1 to 6 tokens; a 16×16 zero matrix or hex dump repeats a span 15 times;
 * a markdown table of 20 empty rows repeats a 7-token row 20 times. A loop repeats without end: 72 repeats of a
 * short span stop the +30-bias " cat" loop inside 96 tokens, and a phrase or row (4 to 32 tokens) stops at a third.
 */
export const REPEAT_DEFAULTS = Object.freeze({
  /** Repeats of a short span (1 to 3 tokens), back to back, that stop the turn; longer spans stop at a third of it. Default: 72. */
  repeats: 72,
});

/** The notice a result carries when the guard stopped a loop. */
export const REPETITION_STOPPED = "repetition_stopped";

/** What the Turn does when the guard trips: the closing to force (under the grammar), and how the turn ends. */
export type RepeatStop = GuardClose | { tokens: []; finish: "stop" };

export class RepeatGuard {
  /** The last REPEAT_MAX_PERIOD tokens, as a ring. */
  private readonly ring = new Int32Array(REPEAT_MAX_PERIOD).fill(-1);
  private seen = 0;
  /** Per period p (index p - 1): how many tokens in a row equalled the token p before them. */
  private readonly runs = new Int32Array(REPEAT_MAX_PERIOD);
  private looping = false;
  /** Loops stopped in this turn. */
  stopped = 0;

  /** Per period p (index p - 1): tokens equal to the one p before that make a loop (a span written k times has (k - 1) * p). */
  private readonly limits: Int32Array;

  /** @param repeats repeats of a short span, back to back, that count as a loop (≥ 2; longer spans: a third of it, ≥ 2) */
  constructor(repeats: number = REPEAT_DEFAULTS.repeats) {
    this.limits = Int32Array.from({ length: REPEAT_MAX_PERIOD }, (_, i) => {
      const p = i + 1;
      return ((p <= REPEAT_SHORT_SPAN ? repeats : Math.max(2, Math.ceil(repeats / 3))) - 1) * p;
    });
  }

  /** Watch tokens the turn added (sampled and forced, in order). */
  push(tokens: readonly number[]): void {
    for (const token of tokens) {
      for (let p = 1; p <= REPEAT_MAX_PERIOD; p++) {
        const same = this.seen >= p && this.ring[(this.seen - p) % REPEAT_MAX_PERIOD] === token;
        this.runs[p - 1] = same ? this.runs[p - 1]! + 1 : 0;
        if (same && this.runs[p - 1]! >= this.limits[p - 1]! && !this.shortSpanRun(p)) this.looping = true;
      }
      this.ring[this.seen % REPEAT_MAX_PERIOD] = token;
      this.seen++;
    }
  }

  /** Whether the run of period p is a short span's run (a row of 64 zeros is not a 6-token span repeated 24 times). */
  private shortSpanRun(p: number): boolean {
    if (p <= REPEAT_SHORT_SPAN) return false;
    for (let d = 1; d <= REPEAT_SHORT_SPAN; d++) if (p % d === 0 && this.runs[d - 1]! >= this.runs[p - 1]!) return true;
    return false;
  }

  /** Whether the tokens so far end in a loop; true once per loop (the count starts over). */
  tripped(): boolean {
    if (!this.looping) return false;
    this.looping = false;
    this.runs.fill(0);
    this.stopped++;
    return true;
  }

  /**
   * How to stop a loop that tripped the guard: under the grammar, the matcher's closing (accepted), ending the turn
   * with `tool_calls` (or `length` when the grammar refused it); in free text, end the turn.
   */
  stop(matcher: Closable | undefined): RepeatStop {
    if (!matcher) return { tokens: [], finish: "stop" };
    const closing = matcher.closing() ?? [];
    const accepted = matcher.acceptAll(closing);
    return { tokens: accepted, finish: accepted.length === closing.length && closing.length > 0 ? "tool_calls" : "length" };
  }
}
