// Owns: what the engine knows of a model's tokens as plain data (TokenTables: the token of each byte, the tokens
// banned inside calls, the end-of-generation ids, the added tokens and each token's text), read once per model by
// src/model/vocabulary.ts.

/** A token the vocabulary adds on top of BPE (CONTROL or USER_DEFINED), with its spelling. */
export interface AddedToken {
  text: string;
  token: number;
}

export interface TokenTables {
  /** Vocabulary size (tokens the model can emit). */
  vocabSize: number;
  /** Token id of each byte 0..255 (byte-level BPE), or undefined when the vocabulary is not byte-level. */
  byteTokens: readonly number[] | undefined;
  /**
   * Tokens whose text alone is not valid UTF-8 (a character cut at either end). The engine's matcher steps them
   * byte by byte and carries a cut character to the next token (utf8-steps.ts), so a call never holds invalid
   * UTF-8; each still adds at least one byte, which keeps the grammar's byte bound a token bound.
   */
  partialUtf8Tokens: readonly number[];
  /** The end-of-generation token used to ask a grammar state "may it end here?". */
  eog: number;
  /** Every end-of-generation token (Qwen3 has several): where the grammar may end, each may be sampled. */
  eogTokens: readonly number[];
  /**
   * Tokens the vocabulary adds on top of BPE (CONTROL like `<|im_start|>`, USER_DEFINED like the call tags),
   * longest spelling first: the only tokens a prompt may hold as markers, and only where the template puts them.
   */
  addedTokens: readonly AddedToken[];
  /** Each token's text (without special-token spelling), by id. */
  texts: readonly string[];
}

/** Added tokens sorted longest first, so that a split takes the longest spelling at a position. */
export function sortAdded(tokens: readonly AddedToken[]): AddedToken[] {
  return tokens.filter((t) => t.text !== "").sort((a, b) => b.text.length - a.text.length || a.token - b.token);
}

/**
 * Tokens the engine never takes as whole text, which its byte trie leaves out: the ones that cut a character (the
 * matcher steps them byte by byte), end-of-generation tokens, and tokens with bytes but no text (a padding token's
 * bytes spell `[PAD151669]`, its text is empty). The trie's walk then answers text tokens only.
 */
export function notWholeText(tables: TokenTables): number[] {
  const out = new Set([...tables.partialUtf8Tokens, ...tables.eogTokens]);
  tables.texts.forEach((text, t) => {
    if (!text) out.add(t);
  });
  return [...out];
}
