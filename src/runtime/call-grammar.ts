// Owns: the grammar of a turn once it has taken over, and what consults it between samples: its matcher, the key
// guard (no key completed twice in a JSON call) and how the call closes under it, the budget guard with its
// look-ahead (candidates after which the call could not close in time), jump-forward, and the sampler bias each
// position gets (free text, exactly the allowed set, or the plain in-call bias).

import type { TokenBias } from "node-llama-cpp";
import { fail } from "../errors.js";
import type { ToolCallFormat } from "../formats/index.js";
import type { GrammarPhase, GrammarTool } from "../grammar/index.js";
import { BudgetGuard, type Closable } from "./budget-guard.js";
import { DistinctClosing } from "./distinct-closing.js";
import { createMatcher } from "./engine-choice.js";
import type { TurnGrammar } from "./grammar-source.js";
import { bannedTokens, listedTokens } from "../engine/matcher.js";
import type { TurnMatcher } from "./matcher.js";
import { KeyGuard, type KeyTracker, type KeyVocab } from "./semantic-guard.js";
import { XmlKeyGuard } from "./xml-key-guard.js";
import type { TurnEnv, TurnPlan } from "./turn-plan.js";

/** Forced tokens counted past the budget left, for the figure of a refusal (see refuseForcedOverBudget). */
const FORCED_FIGURE_SLACK = 4096;

export class CallGrammar {
  /** How the current call closes: the matcher's closing, or under the key guard one with distinct keys. */
  readonly closer: Closable;
  readonly guard: BudgetGuard | undefined;
  /** Keys seen per open object of a JSON call or JSON argument: a key cannot be completed twice. */
  readonly keys: KeyTracker | undefined;

  private constructor(
    readonly grammar: TurnGrammar,
    readonly matcher: TurnMatcher,
    private readonly env: TurnEnv,
    private readonly plan: TurnPlan,
    /** Told the grammar time the guards' look-aheads spend on forks (which the matcher does not count). */
    private readonly spent: (ms: number) => void,
  ) {
    this.keys = env.keyVocab && keyGuardFor(plan.format, grammar.compiled.tools, env.keyVocab);
    // Under the key guard the closing writes distinct keys (a minimum member count is part of the closing).
    this.closer = this.keys && env.keyVocab ? new DistinctClosing(matcher, this.keys, env.keyVocab) : matcher;
    this.guard = grammar.guarded ? new BudgetGuard(this.closer) : undefined;
  }

  /** The grammar for `phase` with `remaining` tokens left and its matcher; undefined when not even one call fits. */
  static async open(env: TurnEnv, plan: TurnPlan, phase: GrammarPhase, remaining: number, spent: (ms: number) => void): Promise<CallGrammar | undefined> {
    const t0 = performance.now();
    const grammar = plan.grammar?.(phase, remaining);
    if (!grammar) return undefined;
    spent(performance.now() - t0);
    return new CallGrammar(grammar, await createMatcher(grammar.compiled, env.matchers), env, plan, spent);
  }

  /** Tokens the shortest call from here takes (the closing, with distinct keys under the key guard); undefined when none was found. */
  closingCost(): number | undefined {
    return this.closer.closing()?.length;
  }

  /**
   * A sampled token into the matcher, or what the matcher feeds instead of one it refuses (its replacement knows
   * nothing of keys): under the key guard a replacement that would complete a key twice is undone, and the
   * distinct closing's next token is fed instead.
   */
  take(token: number): number[] {
    const taken = this.matcher.takeSampled(token);
    const texts = this.env.keyVocab?.texts;
    if (!this.keys || !texts || (taken.length === 1 && taken[0] === token)) return taken;
    if (!this.keys.clone().feed(taken.map((t) => texts[t] ?? "").join(""))) return taken;
    this.matcher.rollback(taken.length);
    const next = this.closer.closing()?.[0];
    if (next !== undefined && this.matcher.accept(next)) return [next];
    return this.matcher.takeSampled(token);
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
   * Inside a call: the sampler narrowed to exactly the tokens the grammar allows (so no sample is refused), less
   * those the guards ban (a key completed twice, a token after which the call could not close in time).
   */
  biasFor(remaining: number): TokenBias {
    const { matcher } = this;
    const next = matcher.nextTokens();
    const { biases } = this.env;
    // The guards' look-aheads work on forks of the matcher, whose time the matcher does not count: counted here.
    const t0 = performance.now();
    const ms0 = matcher.ms;
    // Where fewer than half the tokens are allowed the mask is listed (the guards look ahead over it); else a bitset.
    const listed = listedTokens(next);
    const guardBanned = this.keys?.mayBan ? this.keys.banned(matcher, listed) : [];
    // The key guard reads token texts, and a token that cuts a character reads as U+FFFD: inside a key or an item's
    // string that could repeat one, such tokens are not offered (it is spelled with whole characters there).
    const cut = this.keys?.comparing ? this.env.matchers.engine.cutTokens : [];
    if (!listed && next.kind === "bits") {
      // The same bitset at many positions of a string (it is cached per state), and its banned list with it.
      const maskBanned = bannedTokens(next);
      this.spent(performance.now() - t0 - (matcher.ms - ms0));
      return guardBanned.length === 0 ? biases.allBut(maskBanned, cut) : biases.allBut(maskBanned, [...new Set([...guardBanned, ...cut])]);
    }
    const candidates = listed ?? [];
    const keyBanned = new Set([...guardBanned, ...cut]);
    const banned = [...keyBanned, ...this.unaffordable(remaining, candidates.filter((t) => !keyBanned.has(t)))];
    this.spent(performance.now() - t0 - (matcher.ms - ms0));
    if (banned.length === 0) return biases.narrowTo(candidates);
    const out = new Set(banned);
    const kept = candidates.filter((t) => !out.has(t));
    // Nothing left (a key space the look-ahead could not see through): the parser still refuses a repeat.
    return biases.narrowTo(kept.length > 0 ? kept : candidates, kept.length > 0 ? banned : []);
  }

  /**
   * Near the budget's end, the candidates after which the call could not close inside the budget any more: a
   * sampled token and the text the grammar then forces can lengthen the closing by more than GUARD_MARGIN (the
   * first token of a tool's name forces the rest of it, and its required arguments join the closing).
   */
  private unaffordable(remaining: number, candidates: readonly number[]): number[] {
    if (!this.guard?.near(remaining)) return [];
    return this.guard.unaffordable(candidates, remaining, (token) => {
      const fork = this.matcher.fork();
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

/** The key guard of a format: over the whole call in JSON formats, over each JSON argument where arguments are tags. */
export function keyGuardFor(format: ToolCallFormat, tools: readonly GrammarTool[], vocab: KeyVocab): KeyTracker | undefined {
  if (format.body.decoder === "json-call") {
    const plans = new Map(tools.flatMap((t) => (t.unique ? [[t.name, t.unique] as const] : [])));
    // The guard compares keys as the text spells them.
    const spelled = (key: string) => JSON.stringify(key).slice(1, -1);
    const { nameKey, argumentsKey } = format.body.spelling;
    return new KeyGuard(vocab, plans.size > 0 ? { kind: "call", plans, nameKey: spelled(nameKey), argumentsKey: spelled(argumentsKey) } : undefined);
  }
  if (format.stringText === "json") return new KeyGuard(vocab);
  return format.body.decoder === "xml-function" ? new XmlKeyGuard(vocab, format.body.spelling, tools) : undefined;
}
