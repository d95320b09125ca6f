// Owns: judging a whole text against GBNF with the engine that constrains (the same program and pushdown automaton
// as the masks), one code point at a time, under a work bound set before it starts: a verdict, or "too costly"
// when the bound runs out or the grammar outgrows the engine's limits (never a stack overflow, never minutes).

import { compileGbnf } from "./gbnf-program.js";
import { DEAD, EngineLimitError, StackPool } from "./stack-pool.js";

export const TEXT_JUDGE_LIMITS = Object.freeze({
  /**
   * Parses advanced, summed over the distinct states a judgement passes through (a state seen again is a cached
   * transition): about 0.2 s of work at worst, so a judgement never holds the server's event loop for long.
   */
  work: 2_000_000,
});

export type TextVerdict = "accepted" | "rejected" | "too_costly";

/** Whether `gbnf` (root rule `root`) accepts exactly `text`; throws GbnfError on GBNF the engine cannot read. */
export function judgeTextWithGbnf(gbnf: string, text: string, work = TEXT_JUDGE_LIMITS.work): TextVerdict {
  const program = compileGbnf(gbnf);
  try {
    const pool = new StackPool(program);
    const seen = new Set<number>();
    let spent = 0;
    let at = pool.root;
    for (const ch of text) {
      if (!seen.has(at)) {
        seen.add(at);
        spent += pool.tops(at).length;
        if (spent > work) return "too_costly";
      }
      at = pool.step(at, ch.codePointAt(0)!);
      if (at === DEAD) return "rejected";
    }
    return pool.accepts(at) ? "accepted" : "rejected";
  } catch (e) {
    if (e instanceof EngineLimitError) return "too_costly";
    throw e;
  }
}
