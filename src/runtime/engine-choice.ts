// Owns: making a turn's matcher with qtc's constraint engine (src/engine/), the runtime's only one; a grammar the
// engine will not hold is the caller's `schema_too_large` (createQtcMatcher words it).

import type { MatcherGrammar } from "../engine/matcher.js";
import { createQtcMatcher, type QtcMatcher } from "../engine/qtc-matcher.js";
import type { MatcherEnv } from "./matcher.js";

/** A matcher at the grammar's start; a grammar the engine will not hold rejects as `schema_too_large`. */
export async function createMatcher(grammar: MatcherGrammar, env: MatcherEnv): Promise<QtcMatcher> {
  return createQtcMatcher(grammar, env.engine);
}
