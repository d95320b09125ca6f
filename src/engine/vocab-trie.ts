// Owns: the model's vocabulary as a byte trie (token ids sorted by their bytes, nodes as ranges of that order),
// built once per model from plain data (each token's bytes, which tokens are special). The allowed-token walk
// descends it alongside a grammar state.

/** A vocabulary's tokens as plain data (src/model/vocabulary.ts reads it out of a loaded model). */
export interface VocabBytes {
  /** The bytes each token stands for, by id; the array's length is the vocabulary size. */
  bytes: readonly Uint8Array[];
  /** Added tokens (CONTROL and USER_DEFINED, e.g. `<tool_call>`, `<|im_end|>`): grammars name them by id. */
  special: readonly number[];
}

/** The tokens under one prefix: `order[lo..hi)`; the first `depth` bytes of each are the prefix. */
export interface TrieRange {
  lo: number;
  hi: number;
  depth: number;
}

export interface TrieNode {
  /** Tokens whose bytes are exactly the prefix. */
  ends: readonly number[];
  /** One entry per next byte, in byte order. */
  children: readonly (TrieRange & { byte: number })[];
}

/** Nodes with at least this many tokens keep their children once computed (they are few; scanning them is not). */
const CACHE_FROM = 256;

export class VocabTrie {
  /** Token ids sorted by their bytes. */
  private readonly order: Int32Array;
  private readonly bytes: (Uint8Array | undefined)[];
  private readonly cache = new Map<number, TrieNode>();
  readonly root: TrieRange;

  /**
   * `excluded`: tokens left out (e.g. partial UTF-8, banned inside calls anyway). Special tokens (`vocab.special`)
   * are always left out: grammars name them by id, and callers probe those directly.
   */
  constructor(vocab: VocabBytes, excluded: readonly number[]) {
    const vocabSize = vocab.bytes.length;
    const special = new Set(vocab.special);
    const skip = new Set(excluded);
    this.bytes = new Array<Uint8Array | undefined>(vocabSize);
    const ids: number[] = [];
    for (let t = 0; t < vocabSize; t++) {
      const b = vocab.bytes[t]!;
      if (special.has(t) || b.length === 0) continue;
      // An excluded token keeps its bytes (bytesOf: the matcher steps partial UTF-8 byte by byte) but no place in the trie.
      this.bytes[t] = b;
      if (!skip.has(t)) ids.push(t);
    }
    // One char per byte: comparing these strings is byte order, and faster than comparing the byte arrays.
    const keys = this.bytes.map((b) => (b ? String.fromCharCode(...b) : ""));
    ids.sort((x, y) => (keys[x]! < keys[y]! ? -1 : keys[x]! > keys[y]! ? 1 : 0));
    this.order = Int32Array.from(ids);
    this.root = { lo: 0, hi: ids.length, depth: 0 };
  }

  /** A token's bytes (excluded tokens too); undefined for special and empty tokens. */
  bytesOf(token: number): Uint8Array | undefined {
    return this.bytes[token];
  }

  /** Token ids in a range (for probing a small range token by token). */
  tokensIn(range: TrieRange): Int32Array {
    return this.order.subarray(range.lo, range.hi);
  }

  /** The node of a range: its own tokens and its children by next byte. */
  node(range: TrieRange): TrieNode {
    const key = range.lo * 4096 + range.depth;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const { depth } = range;
    const ends: number[] = [];
    const children: (TrieRange & { byte: number })[] = [];
    let i = range.lo;
    // Shorter sorts first: tokens that end at this depth lead the range.
    while (i < range.hi && this.bytes[this.order[i]!]!.length === depth) ends.push(this.order[i++]!);
    while (i < range.hi) {
      const byte = this.bytes[this.order[i]!]![depth]!;
      const lo = i;
      while (i < range.hi && this.bytes[this.order[i]!]![depth] === byte) i++;
      children.push({ byte, lo, hi: i, depth: depth + 1 });
    }
    const node = { ends, children };
    if (range.hi - range.lo >= CACHE_FROM) this.cache.set(key, node);
    return node;
  }
}
