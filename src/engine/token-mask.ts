// Owns: the qtc engine's allowed-token walk: the vocabulary's byte trie descended alongside the pushdown
// automaton (UTF-8 decoded on the way; a partial character survives only while some class could still match it),
// so only prefixes the grammar allows are visited, and each step is a cached transition. Bounded in nodes: a
// position with too many allowed tokens to list (free text) answers "wide" instead of taking long.

import { DEAD, type StackPool, type StateId } from "./stack-pool.js";
import type { VocabTrie, TrieRange } from "./vocab-trie.js";

/** Trie nodes one walk may visit before it gives up ("wide"). */
export const MASK_NODE_BUDGET = 6000;
/**
 * Tokens under prefixes that lead into free text (`isText`) one walk may enter before it gives up ("wide") without
 * visiting them: after a string's `\\` every token that starts with `n` continues the string, so listing them would
 * spend the whole node budget to answer "wide" anyway.
 */
export const MASK_TEXT_TOKENS = 2048;

const OVER = Symbol("over budget");

/**
 * Tokens of the trie `state` allows next (text tokens only; special tokens are the caller's), or undefined when
 * the walk passed `budget` nodes.
 */
export function allowedTextTokens(pool: StackPool, trie: VocabTrie, state: StateId, budget = MASK_NODE_BUDGET, isText?: (s: StateId) => boolean): Int32Array | undefined {
  const allowed: number[] = [];
  let left = budget;
  let textLeft = MASK_TEXT_TOKENS;
  // cp: the code point being decoded (its bits so far); need: continuation bytes still to come.
  const walk = (range: TrieRange, at: StateId, cp: number, need: number): void => {
    if (--left < 0) throw OVER;
    const node = trie.node(range);
    if (need === 0) for (const t of node.ends) allowed.push(t);
    for (const child of node.children) {
      const b = child.byte;
      let next = at;
      let ncp = 0;
      let nneed = 0;
      if (need === 0) {
        if (b < 0x80) next = pool.step(at, b);
        else if (b >= 0xc2 && b <= 0xf4) {
          nneed = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
          ncp = b & (0x3f >> nneed);
        } else continue;
      } else {
        if ((b & 0xc0) !== 0x80) continue;
        ncp = (cp << 6) | (b & 0x3f);
        nneed = need - 1;
        if (nneed === 0) {
          next = pool.step(at, ncp);
          ncp = 0;
        }
      }
      if (next === DEAD) continue;
      if (nneed === 0 && isText?.(next) && (textLeft -= child.hi - child.lo) < 0) throw OVER;
      if (nneed > 0) {
        const lo = ncp * 2 ** (6 * nneed);
        if (!pool.meets(at, lo, lo + 2 ** (6 * nneed) - 1)) continue;
      }
      walk(child, next, ncp, nneed);
    }
  };
  try {
    walk(trie.root, state, 0, 0);
  } catch (e) {
    if (e === OVER) return undefined;
    throw e;
  }
  return Int32Array.from(allowed);
}
