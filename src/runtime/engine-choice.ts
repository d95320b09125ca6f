// Owns: which constraint engine a runtime's turns use (the qtc engine, src/runtime/engine/, or llama.cpp's native
// grammar sampler probed around), and making a turn's matcher with it.

import type { MatcherGrammar, MatcherEnv, TurnMatcher } from "./matcher.js";
import { GrammarMatcher } from "./matcher.js";
import { QtcMatcher } from "./engine/qtc-matcher.js";
import type { EngineVocab } from "./engine/engine-vocab.js";
import { GbnfError } from "./engine/gbnf-program.js";
import { EngineLimitError } from "./engine/stack-pool.js";
import { QtcException } from "../errors.js";

/** `qtc`: qtc's own pushdown matcher and token masks, no native grammar state; `llama.cpp`: llama.cpp's sampler. */
export type GrammarEngineId = "qtc" | "llama.cpp";

export const GRAMMAR_ENGINES: readonly GrammarEngineId[] = ["qtc", "llama.cpp"];

/** A matcher at the grammar's start, with the engine the runtime chose (env.engine set: qtc's). */
export async function createMatcher(grammar: MatcherGrammar, env: MatcherEnv): Promise<TurnMatcher> {
  return env.engine ? createQtcMatcher(grammar, env.engine) : GrammarMatcher.create(grammar, env);
}

/**
 * qtc's engine at the grammar's start; a grammar it will not hold is refused as `schema_too_large`. The compiler's
 * bounds and the engine's differ (a repetition the engine unrolls past its rule limit): the caller's tools are too
 * large to constrain, which is bad input, not a crash.
 */
export function createQtcMatcher(grammar: MatcherGrammar, vocab: EngineVocab): QtcMatcher {
  try {
    return QtcMatcher.create(grammar, vocab);
  } catch (e) {
    if (e instanceof GbnfError || e instanceof EngineLimitError) {
      throw new QtcException({ code: "schema_too_large", message: `the tools are too large for qtc's constraint engine: ${e.message}; simplify the schemas or send fewer tools (or use grammarEngine: "llama.cpp")` });
    }
    throw e;
  }
}
