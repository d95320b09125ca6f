// Owns: what every matcher of a runtime shares (MatcherEnv: the runtime's plain-text tokenization and the engine's
// vocabulary). The matcher interface is the engine's (src/engine/matcher.ts); the Turn and its guards use it as is.

import type { EngineVocab } from "../engine/engine-vocab.js";
import type { Matcher } from "../engine/matcher.js";

export type { Continuation, MatcherGrammar, NextTokens } from "../engine/matcher.js";

/** The grammar state of one sequence in one turn: the engine's Matcher. */
export type TurnMatcher = Matcher;

/** The per-model things every matcher of a runtime shares. */
export interface MatcherEnv {
  /** Canonical tokens of forced text: plain text, never an added token (property names come from clients). */
  tokenize(text: string): number[];
  /** The qtc constraint engine's view of the vocabulary. */
  engine: EngineVocab;
}
