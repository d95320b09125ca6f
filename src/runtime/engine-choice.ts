// Owns: making a turn's matcher with qtc's constraint engine (src/runtime/engine/), the runtime's only one, and
// turning a grammar the engine will not hold into the caller's `schema_too_large`.

import type { MatcherGrammar, MatcherEnv } from "./matcher.js";
import { QtcMatcher } from "./engine/qtc-matcher.js";
import type { EngineVocab } from "./engine/engine-vocab.js";
import { GbnfError } from "./engine/gbnf-program.js";
import { EngineLimitError } from "./engine/stack-pool.js";
import { QtcException } from "../errors.js";

/** A matcher at the grammar's start; a grammar the engine will not hold rejects as `schema_too_large`. */
export async function createMatcher(grammar: MatcherGrammar, env: MatcherEnv): Promise<QtcMatcher> {
  return createQtcMatcher(grammar, env.engine);
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
      throw new QtcException({ code: "schema_too_large", message: `the tools are too large for qtc's constraint engine: ${e.message}; simplify the schemas or send fewer tools` });
    }
    throw e;
  }
}
