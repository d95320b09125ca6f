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

/**
 * A sampled token in free text lengthens the closing of a call by less than this (an escape, a `<` in raw text);
 * where the grammar allows a small set of tokens, each is checked instead (see `unaffordable`).
 */
export const GUARD_MARGIN = 4;
/**
 * How far from the closing the candidates of a small allowed set are checked one by one (a tool name's first token,
 * a key: the text they force and the members they require can lengthen the closing by dozens of tokens).
 */
export const GUARD_LOOKAHEAD = 64;

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
   * Call after each step of the turn with the tokens left. It measures the closing (matchers remember it per
   * state, so a step that returns to a known state costs a lookup), and once `remaining` is at most the closing plus
   * GUARD_MARGIN (one more sampled token could lengthen the closing by up to GUARD_MARGIN - 1) it closes the call.
   * A closing that the grammar refuses or that no longer fits is cut to the budget and the turn ends at the limit.
   * (It used to trust the last cost until within 8 tokens of it; a closing that grew meanwhile did not fit.)
   */
  check(remaining: number): GuardClose | undefined {
    const closing = this.measure();
    if (!closing || remaining > closing.length + GUARD_MARGIN) return undefined;
    const accepted = this.matcher.acceptAll(closing);
    const fits = accepted.length === closing.length && closing.length <= remaining;
    return fits ? { tokens: accepted, finish: "tool_calls" } : { tokens: accepted.slice(0, Math.max(0, remaining)), finish: "length" };
  }

  /** Whether the budget left is within GUARD_LOOKAHEAD of the last measured closing (where `unaffordable` is asked). */
  near(remaining: number): boolean {
    return this.cost !== undefined && remaining <= this.cost + GUARD_LOOKAHEAD;
  }

  /**
   * Of the candidates for the next token, those whose cost (the token, the text the grammar then forces, and the
   * closing after it: `costAfter`, undefined when unknown) exceeds `remaining`. When every candidate does, all but
   * the cheapest: the turn then ends at the limit as late as it can.
   */
  unaffordable(candidates: readonly number[], remaining: number, costAfter: (token: number) => number | undefined): number[] {
    const costs = candidates.map((t) => costAfter(t) ?? Infinity);
    const over = candidates.filter((_, i) => costs[i]! > remaining);
    if (over.length < candidates.length) return over;
    const least = Math.min(...costs);
    return candidates.filter((_, i) => costs[i]! > least);
  }

  private measure(): readonly number[] | undefined {
    const closing = this.matcher.closing();
    this.cost = closing?.length;
    return closing;
  }
}
