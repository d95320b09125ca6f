// Owns: the thinking budget of a turn's `<think>` phase: the tokens thinking used, the open tag forced at the start
// (unless the prompt opened the block), where thinking must end (the model closed it, the budget or the turn's
// tokens ran out, or the repetition guard tripped) with the tokens that end it, and the think opener's watch.

import type { ToolCallFormat } from "../formats/index.js";
import { ThinkOpener, type ThinkOpenerPlan } from "./think-opener.js";

export interface ThinkingPlan extends ThinkOpenerPlan {
  thinking: boolean;
  /** Most tokens thinking may take (ResolvedRequest.thinkingBudget). */
  thinkingBudget: number;
  /** Where the turn has a grammar (the think opener is watched only then). */
  grammar: unknown;
}

export class ThinkingBudget {
  /** Ends thinking at a call opener sampled in the think phase (issue 43); undefined when not watched. */
  readonly opener: ThinkOpener | undefined;
  /** Tokens of the think phase so far (the forced open tag included). */
  private used = 0;
  private readonly format: ToolCallFormat;
  private readonly budget: number;

  constructor(
    plan: ThinkingPlan,
    /** The grammar holds the answer from its first token: the blank line after `</think>` is forced too. */
    private readonly grammarFromStart: boolean,
    private readonly tokenize: (text: string) => number[],
  ) {
    this.format = plan.format;
    this.budget = plan.thinkingBudget;
    this.opener = plan.thinking && plan.grammar ? new ThinkOpener(plan, tokenize) : undefined;
  }

  /**
   * A sampled think-phase token that ends thinking before it: the call opener (taken after the close), or, where
   * the answer must come under the grammar, an end of generation (dropped: no bias can ban one, and such a turn
   * cannot end inside `<think>`). `before`: the tokens forced in its place; `cost`: all the switch adds.
   */
  endsAt(token: number, eog: boolean): { before: readonly number[]; keep: boolean; cost: number } | undefined {
    if (this.opener?.endsThinking(token)) return { before: this.opener.before, keep: true, cost: this.opener.cost };
    if (!eog || !this.grammarFromStart) return undefined;
    const before = [this.format.think.close.token, ...this.tokenize("\n\n")];
    return { before, keep: false, cost: before.length };
  }

  /** Tokens forced before the first sample: the open tag, unless the format's template opened the block (Qwen3.5). */
  opening(): number[] {
    if (this.format.think.openedByPrompt) return [];
    this.used = 1;
    return [this.format.think.open.token];
  }

  /**
   * After a sampled think-phase token was added: undefined while thinking goes on, else the tokens to force as
   * it ends (`</think>` and the blank line where the model did not close it).
   */
  after(token: number, remaining: number, repeating: () => boolean): number[] | undefined {
    this.used++;
    const close = this.format.think.close.token;
    if (token === close) return this.grammarFromStart ? this.tokenize("\n\n") : [];
    if (this.used < this.budget && remaining > 3 && !repeating()) return undefined;
    return [close, ...this.tokenize("\n\n")];
  }
}
