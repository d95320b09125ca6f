// Owns: jump-forward planning: the text and special tokens a grammar forces (ForcedRun, as pieces), and the
// canonical tokens to feed for them in one batch instead of sampling them one at a time.

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
 * rejected, and each rejection makes llama.cpp check the full vocabulary against the grammar: with the
 * harness grammars on the tiny model that took 660 ms per call against 369 ms without holding back. Qwen's
 * pre-tokenizer splits `"` + space from the letters after it anyway, so the boundary rarely merges.
 */
export function planTokens(run: ForcedRun, tokenize: (text: string) => number[]): JumpForwardPlan {
  const tokens: number[] = [];
  for (const piece of run.pieces) {
    if (piece.kind === "special") tokens.push(piece.token);
    else tokens.push(...tokenize(piece.text));
  }
  return { tokens, ends: run.ends };
}

/** Special token ids a hand-written GBNF text names as `<[id]>` (a CompiledGrammar carries its own: specialTokens). */
export function grammarSpecialTokens(gbnf: string): number[] {
  const ids = new Set<number>();
  for (const m of gbnf.matchAll(/<\[(\d+)\]>/g)) ids.add(Number(m[1]));
  return [...ids];
}
