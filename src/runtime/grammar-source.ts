// Owns: the bridge from the grammar stage to a turn: compiles the request's tool grammar on demand, for the
// phase where it takes over and the token budget left at that point (cached per tools list and options).

import { QtcException } from "../errors.js";
import type { ToolCallFormat } from "../formats/index.js";
import type { GrammarCache } from "../grammar/compile.js";
import type { CompiledGrammar, GrammarPhase } from "../grammar/types.js";
import type { JsonSchema, ToolChoice, ToolDefinition } from "../tools/types.js";
import { checkGrammarCost } from "../engine/grammar-cost.js";
import type { TextConstraint } from "../grammar/answer-constraint.js";

/** A grammar for the rest of a turn, compiled for the budget left when it takes over. */
export interface TurnGrammar {
  compiled: CompiledGrammar;
  /**
   * The grammar bounds calls to more bytes than the token budget left: the runtime must close the call itself
   * (forcing a completion) before the budget runs out.
   */
  guarded: boolean;
}

/** Compiles the turn's grammar on demand. Returns undefined when not even one call fits `maxTokens`. */
export type TurnGrammarSource = (phase: GrammarPhase, maxTokens: number) => TurnGrammar | undefined;

export interface TurnGrammarOptions {
  format: ToolCallFormat;
  toolChoice: ToolChoice;
  parallel: boolean;
  maxCalls: number;
  /** The answer, when not calls, is JSON that fits this schema (see ToolGrammarOptions.answerSchema). */
  answerSchema?: JsonSchema | boolean;
  /** The answer, when not calls, is held by this regex, choice or grammar (see ToolGrammarOptions.answerConstraint). */
  answerConstraint?: TextConstraint;
}

/** Byte budgets tried, as multiples of the token budget, when a call does not fit it byte for byte. */
export const GUARDED_FACTORS = [2, 4, 8] as const;

/**
 * A grammar source for one request. The runtime runs the `<think>` phase itself, so grammars start after it
 * ("start" = the first answer token, "after-open" = after a sampled open tag).
 *
 * The grammar bounds a call in bytes (a token is at least one byte), which is sound but pessimistic: the
 * forced envelope (`{"name": "write_file", "arguments": {"path": "`) is fed as a few canonical tokens. When a
 * tool does not fit the token budget byte for byte, the grammar is compiled for a larger byte budget and the
 * turn is `guarded`: the runtime closes the call itself before the token budget runs out.
 *
 * Returns undefined when not even one call fits; other compile errors (a schema the compiler cannot honour)
 * throw, which is why `checkToolGrammar` runs before a sequence is taken.
 */
export function turnGrammarSource(tools: readonly ToolDefinition[], opts: TurnGrammarOptions, cache: GrammarCache, canGuard: boolean): TurnGrammarSource {
  return (phase, maxTokens) => {
    const compile = (budget: number) => {
      const compiled = cache.compile(tools, {
        format: opts.format,
        toolChoice: opts.toolChoice,
        parallel: opts.parallel,
        maxCalls: opts.parallel ? opts.maxCalls : 1,
        maxTokens: budget,
        thinking: false,
        phase,
        answerSchema: opts.answerSchema,
        answerConstraint: opts.answerConstraint,
        // The shared split (the default, what MaskBench measures) needs the budget guard to close a call in time.
        budgetSplit: canGuard ? "shared" : "worst-case",
      });
      if (!compiled.ok && compiled.error.code !== "budget_too_small") throw new QtcException(compiled.error);
      // Bounded before any engine loads it: size, rules, and the memory its evaluation takes.
      if (compiled.ok) checkCostOnce(compiled.value, cache);
      return compiled.ok ? compiled.value : undefined;
    };
    const exact = compile(maxTokens);
    // Under the shared split a call, or a JSON answer (not counted in worstCaseCallTokens), may outgrow the budget.
    const outgrows = (g: CompiledGrammar) => g.worstCaseCallTokens > maxTokens || opts.answerSchema !== undefined;
    if (exact && exact.omittedTools.length === 0) return { compiled: exact, guarded: canGuard && outgrows(exact) };
    if (canGuard) {
      for (const factor of GUARDED_FACTORS) {
        const wide = compile(maxTokens * factor);
        if (wide && wide.omittedTools.length === 0) return { compiled: wide, guarded: true };
      }
    }
    return exact && { compiled: exact, guarded: false };
  };
}

/** Throw the compile error of a request's grammar (bad schema, unsupported keyword) before anything runs. */
export function checkToolGrammar(tools: readonly ToolDefinition[], opts: TurnGrammarOptions, maxTokens: number, cache: GrammarCache): void {
  const compiled = cache.compile(tools, { format: opts.format, toolChoice: opts.toolChoice, parallel: opts.parallel, maxTokens, phase: "start", answerSchema: opts.answerSchema, answerConstraint: opts.answerConstraint });
  if (!compiled.ok && compiled.error.code !== "budget_too_small") throw new QtcException(compiled.error);
  if (compiled.ok) checkCostOnce(compiled.value, cache);
}

/** checkGrammarCost once per compiled grammar (it reads the whole GBNF; a turn would pay it per phase). */
function checkCostOnce(grammar: CompiledGrammar, cache: GrammarCache): void {
  if (cache.costChecked.has(grammar)) return;
  checkGrammarCost(grammar);
  cache.costChecked.add(grammar);
}
