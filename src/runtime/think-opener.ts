// Owns: a call opener sampled in the think phase (issue 43). Constrained with thinking on, the model may sample
// the format's `<tool_call>` before it closes its reasoning; that opener ends thinking there: the turn forces
// `</think>` and the blank line the template writes after it in the opener's place, then takes the opener, so
// the call continues under the grammar with the budget left and the reasoning never holds call markup. Forcing
// the close (rather than reading the opener as the end of reasoning) is what the Qwen templates render back:
// `<think>\nREASONING\n</think>\n\n<tool_call>…` (src/prompt/render-qwen3.ts, render-qwen35.ts).

import type { ToolCallFormat } from "../formats/index.js";

export interface ThinkOpenerPlan {
  format: ToolCallFormat;
  mode: "constrained" | "unconstrained";
  /** "none" bans the opener outright; the watch is off then. */
  toolChoice: unknown;
}

export class ThinkOpener {
  /** Tokens forced before the opener: `</think>` and the template's blank line. */
  readonly before: readonly number[];
  private readonly open: number | undefined;

  constructor(plan: ThinkOpenerPlan, tokenize: (text: string) => number[]) {
    const watched = plan.mode === "constrained" && plan.toolChoice !== "none";
    this.open = watched ? plan.format.open.token : undefined;
    this.before = [plan.format.think.close.token, ...tokenize("\n\n")];
  }

  /** The sampled think-phase token is the call opener: thinking ends before it. */
  endsThinking(token: number): boolean {
    return token === this.open;
  }

  /** Tokens the switch adds (the forced close and blank line, then the opener). */
  get cost(): number {
    return this.before.length + 1;
  }
}
