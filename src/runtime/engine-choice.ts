// Owns: which constraint engine a runtime's turns use (the qtc engine, src/engine/, or llama.cpp's native
// grammar sampler probed around), and making a turn's matcher with it.

import type { MatcherGrammar } from "../engine/matcher.js";
import { createQtcMatcher } from "../engine/qtc-matcher.js";
import type { MatcherEnv, TurnMatcher } from "./matcher.js";
import { GrammarMatcher } from "./matcher.js";

/** `qtc`: qtc's own pushdown matcher and token masks, no native grammar state; `llama.cpp`: llama.cpp's sampler. */
export type GrammarEngineId = "qtc" | "llama.cpp";

export const GRAMMAR_ENGINES: readonly GrammarEngineId[] = ["qtc", "llama.cpp"];

/** A matcher at the grammar's start, with the engine the runtime chose (env.engine set: qtc's). */
export async function createMatcher(grammar: MatcherGrammar, env: MatcherEnv): Promise<TurnMatcher> {
  return env.engine ? createQtcMatcher(grammar, env.engine) : GrammarMatcher.create(grammar, env);
}
