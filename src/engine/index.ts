// Owns: the public surface of the constraint engine: the Matcher interface and the function that makes one for a
// compiled grammar and a vocabulary, the vocabulary as plain data, judging a whole text, and the engine's limits.

export type { Continuation, Matcher, MatcherGrammar, NextTokens } from "./matcher.js";
export { allows, bannedTokens, listedTokens } from "./matcher.js";
export { createQtcMatcher, QtcMatcher } from "./qtc-matcher.js";
export { EngineVocab, ENGINE_GRAMMAR_CACHE } from "./engine-vocab.js";
export type { PoolCacheReport } from "./pool-cache.js";
export { notWholeText, sortAdded, type AddedToken, type TokenTables } from "./token-tables.js";
export { VocabTrie, type VocabBytes } from "./vocab-trie.js";
export { grammarSpecialTokens, planTokens, type ForcedPiece, type ForcedRun, type JumpForwardPlan } from "./jump-forward.js";
export { judgeTextWithGbnf, TEXT_JUDGE_LIMITS, type TextVerdict } from "./text-judge.js";
export { GbnfError, PROGRAM_LIMITS } from "./gbnf-program.js";
export { EngineLimitError, POOL_LIMITS } from "./stack-pool.js";
export { KeyGuard, KeyVocab, SemanticMatcher, semanticStateFor, type KeyTracker } from "./semantic/index.js";
