// Owns: the budget guard of a guarded turn: its grammar admits calls longer than the token budget, so the guard
// watches what closing the current call costs and, once the budget left comes within reach of it, closes the call
// with forced tokens so that the turn ends with a whole call inside maxTokens.

/** What the guard needs of a matcher. */
export interface Closable {
  /** Tokens that complete the current call from here, not accepted; undefined when none was found. */
  closing(): readonly number[] | undefined;
  /** Accept tokens in order up to the first rejected; returns those accepted. */
  acceptAll(tokens: readonly number[]): number[];
}

/** One sampled token lengthens the closing of a call by less than this (an escape, a `<` in raw text). */
export const GUARD_MARGIN = 4;
/** How far from the budget's end the closing is recomputed each step (further out, the last cost is trusted). */
export const GUARD_SLACK = 8;

/** The guard's decision: feed these tokens (already accepted) and end the turn with this reason. */
export interface GuardClose {
  tokens: number[];
  finish: "tool_calls" | "length";
}

export class BudgetGuard {
  /** Tokens the last computed closing took; undefined before the first or when none was found. */
  private cost: number | undefined;

  constructor(private readonly matcher: Closable) {}

  /** Whether the call can be closed within `remaining` tokens from here (refuse to open one that cannot). */
  fits(remaining: number): boolean {
    return (this.measure()?.length ?? Infinity) <= remaining;
  }

  /**
   * Call after each step of the turn with the tokens left. Far from the end it trusts the last cost; within
   * GUARD_SLACK of it, it measures again, and once `remaining` is at most the closing plus GUARD_MARGIN (one more
   * sampled token could lengthen the closing by up to GUARD_MARGIN - 1) it closes the call. A closing that the
   * grammar refuses or that no longer fits is cut to the budget and the turn ends at the limit.
   */
  check(remaining: number): GuardClose | undefined {
    if (this.cost !== undefined && remaining > this.cost + GUARD_MARGIN + GUARD_SLACK) return undefined;
    const closing = this.measure();
    if (!closing || remaining > closing.length + GUARD_MARGIN) return undefined;
    const accepted = this.matcher.acceptAll(closing);
    const fits = accepted.length === closing.length && closing.length <= remaining;
    return fits ? { tokens: accepted, finish: "tool_calls" } : { tokens: accepted.slice(0, Math.max(0, remaining)), finish: "length" };
  }

  private measure(): readonly number[] | undefined {
    const closing = this.matcher.closing();
    this.cost = closing?.length;
    return closing;
  }
}
