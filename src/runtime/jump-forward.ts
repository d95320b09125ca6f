// Owns: jump-forward's plan: the canonical tokens to feed for a forced run (the text a grammar admits as its only
// continuation, found by the matcher), in one batch instead of sampling them one at a time.

export type ForcedPiece = { kind: "text"; text: string } | { kind: "special"; token: number };

export interface ForcedRun {
  pieces: ForcedPiece[];
  /** The grammar can only end after the run (end of generation is the one continuation). */
  ends: boolean;
}

export interface JumpForwardPlan {
  /** Tokens to feed, canonical for each text piece. */
  tokens: number[];
  /** The grammar can only end after these tokens. */
  ends: boolean;
}

/**
 * Canonical tokens for a forced run: each text piece tokenized as a whole (the way the tokenizer spells it).
 *
 * The whole run is fed, its last token too. Holding that token back (so the model could merge it with what it
 * writes next, as llguidance does) leaves the grammar at a position where nearly every sampled token is
 * rejected (measured under llama.cpp's sampler: 660 ms per harness call against 369 ms without holding back).
 * Qwen's pre-tokenizer splits `"` + space from the letters after it anyway, so the boundary rarely merges.
 */
export function planTokens(run: ForcedRun, tokenize: (text: string) => number[]): JumpForwardPlan {
  const tokens: number[] = [];
  for (const piece of run.pieces) {
    if (piece.kind === "special") tokens.push(piece.token);
    else tokens.push(...tokenize(piece.text));
  }
  return { tokens, ends: run.ends };
}
