// Owns: the Matcher interface, the grammar state of one sequence (xgrammar's GrammarMatcher): accept tokens, the
// allowed next set, the forced text (jump-forward), the closing of the current call, fork and rollback; and what a
// matcher needs of a compiled grammar. QtcMatcher (qtc-matcher.ts) is the engine's implementation.

import type { CompiledGrammar } from "../grammar/types.js";
import { allowedIds, bannedIds, hasBit } from "./token-bits.js";

/** What a matcher needs of a compiled grammar. */
export type MatcherGrammar = Pick<CompiledGrammar, "gbnf" | "specialTokens" | "closeToken" | "valueClosers">;

/**
 * Exactly what may come next: these tokens, or (where free text may come) a bitset over the vocabulary with
 * `count` bits set. Either way exact: a token drawn from the model's distribution renormalized over it is never
 * refused.
 */
export type NextTokens = { kind: "set"; tokens: readonly number[] } | { kind: "bits"; allowed: Uint32Array; count: number; vocabSize: number };

/** Whether `token` is in the mask. */
export function allows(next: NextTokens, token: number): boolean {
  return next.kind === "set" ? next.tokens.includes(token) : token >= 0 && token < next.vocabSize && hasBit(next.allowed, token);
}

/**
 * The allowed tokens as a list where fewer than half the vocabulary is allowed (what the guards' look-aheads and
 * the budget guard walk over); undefined where most tokens are allowed (free text: a look-ahead finds a way on).
 */
export function listedTokens(next: NextTokens): readonly number[] | undefined {
  if (next.kind === "set") return next.tokens;
  return next.count * 2 < next.vocabSize ? allowedIds(next.allowed, next.vocabSize) : undefined;
}

/** The banned tokens of a bitset mask, listed once per mask (what a sampler's bias bans). */
export function bannedTokens(next: NextTokens & { kind: "bits" }): readonly number[] {
  return bannedIds(next.allowed, next.vocabSize);
}

/** Accept `tokens` in order up to the first one `accept` refuses; returns those accepted (what acceptAll does). */
export function acceptInOrder(tokens: readonly number[], accept: (token: number) => boolean): number[] {
  const accepted: number[] = [];
  for (const t of tokens) {
    if (!accept(t)) break;
    accepted.push(t);
  }
  return accepted;
}

/** Tokens the grammar forces from here, and whether it can only end after them. */
export interface Continuation {
  tokens: number[];
  ends: boolean;
}

/** The grammar state of one sequence in one turn. */
export interface Matcher {
  /** Milliseconds of grammar work done through this matcher, its creation included. */
  ms: number;
  readonly grammar: MatcherGrammar;
  /** The compiled grammar's estimated bytes in the qtc engine (GrammarUse.bytes); undefined for llama.cpp's. */
  readonly footprintBytes?: number;
  /** Whether `token` may come next (for an end-of-generation token: whether the grammar may end here). */
  canBeNext(token: number): boolean;
  /** Advance past a token fed without sampling; false (and no change) when the grammar refuses it. */
  accept(token: number): boolean;
  /** Accept tokens in order up to the first one the grammar refuses; returns those accepted. */
  acceptAll(tokens: readonly number[]): number[];
  /** Take a sampled token: the tokens actually taken (the token itself; a refused one only if the sampler ignored the mask). */
  takeSampled(token: number): number[];
  /** The allowed next tokens, exactly (see NextTokens; cached per grammar state). */
  nextTokens(): NextTokens;
  /** The canonical tokens of the text the grammar forces from here, at most `maxSteps` steps (not accepted). */
  forcedContinuation(maxSteps: number): Continuation;
  /** Tokens that complete the current call from here (not accepted); undefined when no closing was found. */
  closing(): number[] | undefined;
  /**
   * Tokens that depend on `context` as well as on this position (a caller's own state beside the grammar's, written
   * as text; `what` names the question: a closing, bans): `compute`'s answer, kept per position, question and
   * context where the engine can keep it, so a position reached again with the same context costs a lookup. Absent
   * where the engine keeps none.
   */
  keptBeside?(what: string, context: string, compute: () => number[] | undefined): number[] | undefined;
  /** An independent matcher at the same position. */
  fork(): Matcher;
  /** Undo the last `count` accepted tokens (each token a sampled one was replaced by counts as one). */
  rollback(count: number): void;
}
