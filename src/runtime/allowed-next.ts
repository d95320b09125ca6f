// Owns: finding the exact set of tokens a grammar state allows next, where that set is small (structure, tool
// and property names, enum values, numbers). The turn narrows the sampler to it, so the sampled token always
// passes the grammar. Why: when llama.cpp's sampler picks a token the grammar rejects, it checks the grammar
// against all 151,936 tokens and samples again; that pass took 20–28 ms per token on this machine (the tiny
// model, harness grammar), against about 4 µs for probing one token. See docs/grammar.md, "Narrowed sampling".
//
// The walk descends the vocabulary trie alongside the grammar: a child byte is explored only when the grammar
// accepts it, so only prefixes the grammar allows are ever visited. Small ranges are probed token by token
// from the start state (a state clone costs ~30 probes); larger ones clone the state and go one byte deeper.

import type { LlamaGrammarEvaluationState } from "node-llama-cpp";
import { acceptForced, canBeNext } from "./grammar-state.js";
import type { TrieRange, VocabTrie } from "../engine/vocab-trie.js";

export interface WalkBudget {
  /** Most single-token grammar probes. */
  probes: number;
  /** Most grammar state clones. */
  clones: number;
}

/**
 * About 8 ms of probes at most; a full-vocabulary pass costs more than that. Free text positions (a string's
 * characters) blow any budget, which is why the turn checks for them before walking.
 */
export const ALLOWED_NEXT_BUDGET: Readonly<WalkBudget> = Object.freeze({ probes: 2000, clones: 24 });

/** Ranges of at most this many tokens are probed token by token instead of cloning the state. */
const DIRECT_PROBE_MAX = 32;

const OVER_BUDGET = Symbol("over budget");

export class AllowedNext {
  constructor(
    private readonly trie: VocabTrie,
    /** Token id of each byte 0..255 (byte-level BPE). */
    private readonly byteTokens: readonly number[],
    private readonly budget: Readonly<WalkBudget> = ALLOWED_NEXT_BUDGET,
  ) {}

  /**
   * Every token `state` allows next among the trie's tokens and `specials` (the special tokens the grammar names,
   * an end-of-generation token); undefined when the walk ran past its budget. `state` is not modified.
   */
  find(state: LlamaGrammarEvaluationState, specials: readonly number[]): number[] | undefined {
    const left = { ...this.budget };
    const spend = (what: keyof WalkBudget) => {
      if (left[what]-- <= 0) throw OVER_BUDGET;
    };
    const probe = (at: LlamaGrammarEvaluationState, token: number) => {
      spend("probes");
      return canBeNext(at, token);
    };
    const allowed: number[] = [];
    const walk = (range: TrieRange, at: LlamaGrammarEvaluationState): void => {
      const node = this.trie.node(range);
      for (const token of node.ends) if (probe(state, token)) allowed.push(token);
      for (const child of node.children) {
        const byteToken = this.byteTokens[child.byte]!;
        if (!probe(at, byteToken)) continue;
        if (child.hi - child.lo <= DIRECT_PROBE_MAX) {
          for (const token of this.trie.tokensIn(child)) if (probe(state, token)) allowed.push(token);
          continue;
        }
        spend("clones");
        const next = at.clone();
        if (acceptForced(next, byteToken)) walk(child, next);
      }
    };
    try {
      for (const token of specials) if (probe(state, token)) allowed.push(token);
      walk(this.trie.root, state);
      return allowed;
    } catch (e) {
      if (e === OVER_BUDGET) return undefined;
      throw e;
    }
  }
}
