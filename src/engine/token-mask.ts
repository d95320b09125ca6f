// Owns: the qtc engine's allowed-token walk: the vocabulary's byte trie descended alongside the pushdown
// automaton (UTF-8 decoded on the way; a partial character survives only while some class could still match it),
// so only prefixes the grammar allows are visited, and each step is a cached transition. Used where free text
// cannot come next (text-mask.ts answers there), so the prefixes it visits are few; the answer is cached per state.

import { DEAD, type StackPool, type StateId } from "./stack-pool.js";
import type { VocabTrie } from "./vocab-trie.js";

/**
 * Tokens of the trie `state` allows next (the trie holds whole text tokens only: special and cut tokens are the
 * caller's); only those whose first byte `firstByte` takes, where given.
 */
export function allowedTextTokens(pool: StackPool, trie: VocabTrie, state: StateId, firstByte?: (b: number) => boolean): Int32Array {
  const { order, lo, ends, firstChild, childCount, byte } = trie.flat;
  const allowed: number[] = [];
  let visits = 0;
  // cp: the code point being decoded (its bits so far); need: continuation bytes still to come.
  const walk = (node: number, at: StateId, cp: number, need: number): void => {
    visits++;
    if (need === 0) for (let k = lo[node]!, end = k + ends[node]!; k < end; k++) allowed.push(order[k]!);
    for (let child = firstChild[node]!, last = child + childCount[node]!; child < last; child++) {
      const b = byte[child]!;
      if (node === 0 && firstByte && !firstByte(b)) continue;
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
      if (nneed > 0) {
        const least = ncp * 2 ** (6 * nneed);
        if (!pool.meets(at, least, least + 2 ** (6 * nneed) - 1)) continue;
      }
      walk(child, next, ncp, nneed);
    }
  };
  walk(0, state, 0, 0);
  trie.visits += visits;
  return Int32Array.from(allowed);
}
