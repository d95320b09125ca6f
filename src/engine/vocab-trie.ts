// Owns: the model's vocabulary as a byte trie (token ids sorted by their bytes; nodes as flat arrays over that
// order), built once per model from plain data (each token's bytes, which tokens are special). The allowed-token
// walk descends it alongside a grammar state.

import { PackedLists } from "./packed-lists.js";

/** A vocabulary's tokens as plain data (src/model/vocabulary.ts reads it out of a loaded model). */
export interface VocabBytes {
  /** The bytes each token stands for, by id; the array's length is the vocabulary size. */
  bytes: readonly Uint8Array[];
  /** Added tokens (CONTROL and USER_DEFINED, e.g. `<tool_call>`, `<|im_end|>`): grammars name them by id. */
  special: readonly number[];
}

/**
 * The trie as flat arrays, nodes numbered breadth first from the root (0), so a node's children are consecutive:
 * node i's own tokens (whose bytes are exactly its prefix) are `order[lo[i] .. lo[i] + ends[i])`, its children the
 * nodes `firstChild[i] .. firstChild[i] + childCount[i] - 1` in byte order, each reached by `byte[child]`.
 */
export interface FlatTrie {
  readonly order: Int32Array;
  readonly lo: Int32Array;
  readonly ends: Int32Array;
  readonly firstChild: Int32Array;
  readonly childCount: Int32Array;
  readonly byte: Uint8Array;
}

export class VocabTrie {
  /** Token ids sorted by their bytes. */
  private readonly order: Int32Array;
  /** Every token's bytes by id (none: special or empty). */
  private readonly bytes: PackedLists<Uint8Array>;
  private built: FlatTrie | undefined;
  /** Nodes the allowed-token walks have visited so far (what a test bounds a walk by). */
  visits = 0;

  /**
   * `excluded`: tokens left out (e.g. partial UTF-8, banned inside calls anyway). Special tokens (`vocab.special`)
   * are always left out: grammars name them by id, and callers probe those directly.
   */
  constructor(vocab: VocabBytes, excluded: readonly number[]) {
    const vocabSize = vocab.bytes.length;
    const special = new Set(vocab.special);
    const skip = new Set(excluded);
    const kept = (t: number) => !special.has(t) && vocab.bytes[t]!.length > 0;
    // An excluded token keeps its bytes (bytesOf: the matcher steps partial UTF-8 byte by byte) but no place in the trie.
    this.bytes = PackedLists.pack(
      Uint8Array,
      vocabSize,
      (t) => (kept(t) ? vocab.bytes[t]!.length : 0),
      (t, data, at) => data.set(vocab.bytes[t]!, at),
    );
    const ids: number[] = [];
    for (let t = 0; t < vocabSize; t++) if (kept(t) && !skip.has(t)) ids.push(t);
    // One char per byte: comparing these strings is byte order, and faster than comparing the byte arrays.
    const keys = vocab.bytes.map((b, t) => (kept(t) ? String.fromCharCode(...b) : ""));
    ids.sort((x, y) => (keys[x]! < keys[y]! ? -1 : keys[x]! > keys[y]! ? 1 : 0));
    this.order = Int32Array.from(ids);
  }

  /** A token's bytes (excluded tokens too), a view of the shared buffer; undefined for special and empty tokens. */
  bytesOf(token: number): Uint8Array | undefined {
    return this.bytes.list(token);
  }

  /** A token's length in bytes (0: special or empty). */
  byteLengthOf(token: number): number {
    return this.bytes.lengthOf(token);
  }

  /**
   * The flat trie, built on first use: breadth first over the tokens' bytes laid end to end (17 bytes a node:
   * 333,180 nodes, about 5.7 MB, for Qwen3's vocabulary). A walk over it allocates nothing; building each node's
   * children as it was visited cost most of a full walk's time (100 ms for a mask allowing 146,000 tokens).
   */
  get flat(): FlatTrie {
    return (this.built ??= this.build());
  }

  private build(): FlatTrie {
    const { order } = this;
    // The tokens' bytes in trie order, end to end (one array to scan in the order the nodes are made).
    const from = new Int32Array(order.length + 1);
    for (let j = 0; j < order.length; j++) from[j + 1] = from[j]! + this.byteLengthOf(order[j]!);
    const all = new Uint8Array(from[order.length]!);
    for (let j = 0; j < order.length; j++) all.set(this.bytesOf(order[j]!)!, from[j]!);
    // At most one node per byte of the tokens, and the root.
    const bound = all.length + 1;
    const lo = new Int32Array(bound);
    const hi = new Int32Array(bound);
    const depth = new Uint16Array(bound);
    const byte = new Uint8Array(bound);
    const ends = new Int32Array(bound);
    const firstChild = new Int32Array(bound);
    const childCount = new Int32Array(bound);
    hi[0] = order.length;
    let nodes = 1;
    // Breadth first: a node's depth is known when it is reached, and its children are numbered together.
    for (let i = 0; i < nodes; i++) {
      const d = depth[i]!;
      const end = hi[i]!;
      let j = lo[i]!;
      // Shorter sorts first: tokens that end at this depth lead the range.
      while (j < end && from[j + 1]! - from[j]! === d) j++;
      ends[i] = j - lo[i]!;
      firstChild[i] = nodes;
      while (j < end) {
        const b = all[from[j]! + d]!;
        lo[nodes] = j;
        while (j < end && all[from[j]! + d] === b) j++;
        hi[nodes] = j;
        byte[nodes] = b;
        depth[nodes] = d + 1;
        nodes++;
      }
      childCount[i] = nodes - firstChild[i]!;
    }
    return { order, lo: lo.slice(0, nodes), ends: ends.slice(0, nodes), firstChild: firstChild.slice(0, nodes), childCount: childCount.slice(0, nodes), byte: byte.slice(0, nodes) };
  }
}
