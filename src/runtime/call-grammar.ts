// Owns: the grammar of a turn once it has taken over, and what consults it between samples: its matcher (the
// engine's, with the call's semantic state where the format writes JSON: no key or distinct item twice), the budget
// guard with its look-ahead (candidates after which the call could not close in time), jump-forward, and the sampler
// bias each position gets (free text, exactly the allowed set, or the plain in-call bias).

import type { TokenBias } from "node-llama-cpp";
import { fail } from "../errors.js";
import type { GrammarPhase } from "../grammar/index.js";
import { BudgetGuard } from "./budget-guard.js";
import { createMatcher } from "./engine-choice.js";
import type { TurnGrammar } from "./grammar-source.js";
import { bannedTokens, listedTokens } from "../engine/matcher.js";
import { SemanticMatcher, semanticStateFor } from "../engine/semantic/index.js";
import type { TurnMatcher } from "./matcher.js";
import type { TurnEnv, TurnPlan } from "./turn-plan.js";

/** Forced tokens counted past the budget left, for the figure of a refusal (see refuseForcedOverBudget). */
const FORCED_FIGURE_SLACK = 4096;

export class CallGrammar {
  readonly guard: BudgetGuard | undefined;

  private constructor(
    readonly grammar: TurnGrammar,
    readonly matcher: TurnMatcher,
    /** The grammar's own matcher under `matcher` (the same one where no semantic state is kept). */
    private readonly grammarOnly: TurnMatcher,
    private readonly env: TurnEnv,
    private readonly plan: TurnPlan,
    /** Told the grammar time the guards' look-aheads spend on forks (which the matcher does not count). */
    private readonly spent: (ms: number) => void,
  ) {
    this.guard = grammar.guarded ? new BudgetGuard(matcher) : undefined;
  }

  /** The grammar for `phase` with `remaining` tokens left and its matcher; undefined when not even one call fits. */
  static async open(env: TurnEnv, plan: TurnPlan, phase: GrammarPhase, remaining: number, spent: (ms: number) => void): Promise<CallGrammar | undefined> {
    const t0 = performance.now();
    const grammar = plan.grammar?.(phase, remaining);
    if (!grammar) return undefined;
    spent(performance.now() - t0);
    const grammarMatcher = await createMatcher(grammar.compiled, env.matchers);
    const state = env.keyVocab && semanticStateFor(plan.format, grammar.compiled.tools, env.keyVocab);
    const matcher = state && env.keyVocab ? SemanticMatcher.wrap(grammarMatcher, state, env.keyVocab, env.matchers.engine) : grammarMatcher;
    return new CallGrammar(grammar, matcher, grammarMatcher, env, plan, spent);
  }

  /** Tokens the shortest call from here takes (under semantic state, one with distinct keys); undefined when none was found. */
  closingCost(): number | undefined {
    return this.matcher.closing()?.length;
  }

  /** A guarded grammar admits calls longer than the budget: whether one opened now can close in time. */
  fits(remaining: number): boolean {
    return !this.guard || this.guard.fits(remaining);
  }

  /**
   * A turn that can only answer, before its answer's first token: when the text the constraint forces from here
   * (the choices' shared prefix, a schema's fixed start) takes more tokens than the budget left, no answer can
   * fit; refused as `budget_too_small` with both figures rather than cut at the limit (a bound up front cannot
   * count the tokens of a long run of letters; the forced tokens are counted here exactly).
   */
  refuseForcedOverBudget(remaining: number): void {
    const callable = this.plan.toolChoice !== "none" && this.grammar.compiled.tools.length > 0;
    if (!this.plan.jsonAnswer || callable || !this.plan.jumpForward) return;
    const forced = this.matcher.forcedContinuation(remaining + FORCED_FIGURE_SLACK).tokens.length;
    if (forced <= remaining) return;
    const { maxTokens } = this.plan;
    const figure = forced > remaining + FORCED_FIGURE_SLACK - 1 ? `over ${remaining + FORCED_FIGURE_SLACK - 1}` : `${forced}`;
    fail("budget_too_small", `maxTokens ${maxTokens} is too small for the answer: the text the constraint forces at its start takes ${figure} tokens and ${remaining} are left; raise maxTokens to ${maxTokens - remaining + forced} or more`);
  }

  /** The forced continuation, accepted into `matcher` (none when jump-forward is off). */
  jumpForward(remaining: number, matcher: TurnMatcher = this.matcher): { forced: number[]; ends: boolean } {
    if (!this.plan.jumpForward) return { forced: [], ends: false };
    const next = matcher.forcedContinuation(remaining);
    const forced = matcher.acceptAll(next.tokens);
    return { forced, ends: next.ends && forced.length === next.tokens.length };
  }

  /**
   * Inside a call: the sampler narrowed to exactly the tokens the matcher allows (the grammar's, less what the
   * semantic state bans: a key or an item completed twice), less those after which the call could not close in time.
   */
  biasFor(remaining: number): TokenBias {
    const next = this.matcher.nextTokens();
    const { biases } = this.env;
    // A bitset mask bans most of its tokens through the sampler's bias (its banned list is computed once per bitset).
    if (next.kind === "bits" && !listedTokens(next)) return biases.allBut(bannedTokens(next), []);
    const candidates = listedTokens(next) ?? [];
    // The budget guard's look-ahead works on forks of the matcher, whose time the matcher does not count: counted here.
    const t0 = performance.now();
    const ms0 = this.matcher.ms;
    const unaffordable = this.unaffordable(remaining, candidates);
    this.spent(performance.now() - t0 - (this.matcher.ms - ms0));
    if (unaffordable.length === 0) return biases.narrowTo(candidates);
    const out = new Set(unaffordable);
    const kept = candidates.filter((t) => !out.has(t));
    return biases.narrowTo(kept.length > 0 ? kept : candidates, kept.length > 0 ? unaffordable : []);
  }

  /**
   * Near the budget's end, the candidates after which the call could not close inside the budget any more: a
   * sampled token and the text the grammar then forces can lengthen the closing by more than GUARD_MARGIN (the
   * first token of a tool's name forces the rest of it, and its required arguments join the closing).
   */
  private unaffordable(remaining: number, candidates: readonly number[]): number[] {
    if (!this.guard?.near(remaining)) return [];
    // Each candidate's cost is the grammar's closing, remembered per state; the distinct closing, walked anew each
    // time, is measured once a step by the guard itself.
    return this.guard.unaffordable(candidates, remaining, (token) => {
      const fork = this.grammarOnly.fork();
      if (!fork.accept(token)) return undefined;
      const forced = this.jumpForward(remaining, fork).forced.length;
      const closing = fork.closing();
      return closing && 1 + forced + closing.length;
    });
  }
}

/**
 * No call fits the `left` tokens: under a tool choice that demands one, the turn fails loudly with the figures
 * (`budget_too_small`) instead of ending at the limit with no call, an empty success.
 */
export function refuseUnmetChoice(plan: TurnPlan, call: CallGrammar | undefined, left: number): void {
  const { toolChoice, maxTokens } = plan;
  if (toolChoice !== "required" && typeof toolChoice !== "object") return;
  const least = call?.closingCost();
  const which = `the call tool choice ${JSON.stringify(toolChoice)} demands`;
  if (least === undefined) fail("budget_too_small", `maxTokens ${maxTokens} is too small for ${which}: no call the tools allow fits in the ${left} tokens left; raise maxTokens`);
  fail("budget_too_small", `maxTokens ${maxTokens} is too small for ${which}: the shortest takes ${least} tokens and ${left} are left; raise maxTokens to ${maxTokens - left + least} or more`);
}
