// Owns: the grammar a remote GBNF engine runs for a turn: qtc's compiled grammar (turnGrammarSource, as the local
// runtime compiles it), made to hold for the whole turn without a runtime watching each token: calls share the
// budget up front, and under `auto` the grammar is lazy, starting at the open tag token.

import { fail } from "../errors.js";
import type { GrammarCache } from "../grammar/compile.js";
import type { CompiledGrammar } from "../grammar/types.js";
import { turnGrammarSource, type TurnGrammarOptions } from "../runtime/grammar-source.js";
import type { ToolDefinition } from "../tools/types.js";

/**
 * Tokens each call of a parallel turn gets at least: a remote engine cannot end the turn when the next call would
 * not fit (the local runtime does), so the budget is shared among the calls the grammar admits up front.
 */
export const REMOTE_CALL_TOKENS = 256;

/** What a remote engine's result says about its grammar's budget (the local runtime's default is the shared split). */
export const WORST_CASE_SPLIT_NOTE =
  "grammar budget split worst-case: this engine cannot run qtc's budget guard, so each part of a call gets a static share of maxTokens (the local runtime shares the budget and closes calls in time)";

export interface RemoteGrammar {
  /** GBNF text (special tags as `<[id]>` tokens). */
  gbnf: string;
  /** Apply it only from the trigger token on (tool choice `auto` without a response schema). */
  lazy: boolean;
  /** The open tag token that triggers a lazy grammar, and its spelling. */
  trigger: { token: number; text: string };
  /** Calls it admits at most. */
  maxCalls: number;
  compiled: CompiledGrammar;
}

/**
 * The turn's grammar for an engine that runs GBNF itself. Every call it admits, and all of them together, fit
 * `maxTokens` (a token is at least one byte), so none is cut off by the budget; under `auto`, text before the
 * first call spends the same budget, so a late call can still be cut (the parser then says `truncated`).
 * Throws `budget_too_small` when not even one call fits.
 */
export function remoteGrammar(declared: readonly ToolDefinition[], options: TurnGrammarOptions, maxTokens: number, cache: GrammarCache): RemoteGrammar {
  const lazy = options.toolChoice === "auto" && options.answerSchema === undefined && options.answerConstraint === undefined;
  const phase = lazy ? "after-open" : "start";
  const most = options.parallel ? Math.max(1, Math.min(options.maxCalls, Math.floor(maxTokens / REMOTE_CALL_TOKENS))) : 1;
  for (let calls = most; calls >= 1; calls--) {
    const source = turnGrammarSource(declared, { ...options, parallel: calls > 1, maxCalls: calls }, cache, false);
    const grammar = source(phase, Math.floor(maxTokens / calls));
    if (!grammar) continue;
    const { compiled } = grammar;
    const fits = calls * compiled.worstCaseCallTokens + compiled.thinkingTokens <= maxTokens;
    if ((compiled.omittedTools.length > 0 || !fits) && calls > 1) continue;
    const open = options.format.open;
    // The lazy grammar is fed from the trigger token on (llama.cpp accepts the trigger into the grammar), and
    // the after-open grammar starts after it: the root takes the open tag first.
    const gbnf = lazy ? compiled.gbnf.replace(/^root ::= /m, `root ::= <[${open.token}]> `) : compiled.gbnf;
    return { gbnf, lazy, trigger: { token: open.token, text: open.text }, maxCalls: calls, compiled };
  }
  fail("budget_too_small", `maxTokens ${maxTokens} is too small for any call under tool choice ${JSON.stringify(options.toolChoice)}; raise maxTokens`);
}
