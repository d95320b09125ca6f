// Owns: the matcher interface the Turn and its guards use (accept, the allowed set, forced text, closing, fork),
// and what every matcher of a runtime shares. qtc's engine implements it (QtcMatcher, src/runtime/engine/).

import type { CompiledGrammar } from "../grammar/types.js";
import type { EngineVocab } from "./engine/engine-vocab.js";

/** What a matcher needs of a compiled grammar. */
export type MatcherGrammar = Pick<CompiledGrammar, "gbnf" | "specialTokens" | "closeToken" | "valueClosers">;

/** The per-model things every matcher of a runtime shares. */
export interface MatcherEnv {
  /** Canonical tokens of forced text: plain text, never an added token (property names come from clients). */
  tokenize(text: string): number[];
  /** The qtc constraint engine's view of the vocabulary. */
  engine: EngineVocab;
}

/** What may come next: free text (ordinary letters allowed), exactly these tokens, or too many to list cheaply. */
export type NextTokens = { kind: "text" } | { kind: "set"; tokens: readonly number[] } | { kind: "wide" };

/** Tokens the grammar forces from here, and whether it can only end after them. */
export interface Continuation {
  tokens: number[];
  ends: boolean;
}

/** The grammar state of one sequence in one turn, as the Turn uses it. */
export interface TurnMatcher {
  /** Milliseconds of grammar work done through this matcher, its creation included. */
  ms: number;
  readonly grammar: MatcherGrammar;
  /** The compiled grammar's estimated bytes in the engine (GrammarUse.bytes). */
  readonly footprintBytes?: number;
  canBeNext(token: number): boolean;
  accept(token: number): boolean;
  acceptAll(tokens: readonly number[]): number[];
  /** Take a sampled token: the tokens actually taken (the token itself, or what the engine fed instead). */
  takeSampled(token: number): number[];
  nextTokens(): NextTokens;
  forcedContinuation(maxSteps: number): Continuation;
  closing(): number[] | undefined;
  fork(): TurnMatcher;
}
