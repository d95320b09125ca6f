// Owns: what the qtc engine knows of one model's vocabulary, built once per runtime: each token's code points
// (text tokens that are whole UTF-8), which tokens are special (added tokens, end of generation), the byte trie
// the mask walk descends, and the engine's per-model cache of compiled grammars (pool-cache.ts: bounded by bytes).

import { PackedLists } from "./packed-lists.js";
import { ENGINE_GRAMMAR_CACHE, PoolCache, type PoolCacheReport } from "./pool-cache.js";
import type { StackPool } from "./stack-pool.js";
import { buildTextIndex, warmTextMasks, type TextIndex } from "./text-mask.js";
import type { TokenTables } from "./token-tables.js";
import type { VocabTrie } from "./vocab-trie.js";

export { ENGINE_GRAMMAR_CACHE };

/** Texts a vocabulary remembers the tokens of, and the longest text it remembers. */
const TOKENIZED_TEXTS = 4096;
const TOKENIZED_TEXT_CHARS = 512;

/**
 * The tokenizer, remembering what it answered: a closing or a forced run is tokenized at each new state of a turn,
 * and most are the same text (each position of a string closes with `"}}` and the close tag), while the tokenizer
 * is a native call. Bounded: it starts over when full. Each answer is a copy (callers may keep or change it).
 */
function rememberingTokenizer(tokenize: (text: string) => number[]): (text: string) => number[] {
  const known = new Map<string, readonly number[]>();
  return (text) => {
    const hit = known.get(text);
    if (hit) return [...hit];
    const tokens = tokenize(text);
    if (text.length <= TOKENIZED_TEXT_CHARS) {
      if (known.size >= TOKENIZED_TEXTS) known.clear();
      known.set(text, [...tokens]);
    }
    return tokens;
  };
}

export class EngineVocab {
  /** Each text token's code points; none for special tokens and tokens that are not whole UTF-8. */
  private readonly chars: PackedLists<Int32Array>;
  private readonly special: Uint8Array;
  readonly eogTokens: readonly number[];
  /**
   * Of the tokens that are not whole UTF-8 (a character cut at either end; stepped byte by byte, utf8-steps.ts),
   * the ones that begin inside a character: only they can follow a token that ended mid-character.
   */
  readonly continuationTokens: Int32Array;
  /** Every token that cuts a character (the guards beside the engine read token texts, which show U+FFFD for these). */
  readonly cutTokens: readonly number[];
  /** The others (they begin where a character may), grouped by their first byte: a state refuses a whole group at once. */
  readonly startingTokens: ReadonlyMap<number, Int32Array>;
  private readonly cut: Uint8Array;
  private grammars: PoolCache;
  private index: TextIndex | undefined;
  private readonly cacheLimits: { readonly bytes: number; readonly entries: number };
  /** Canonical tokens of forced text (remembered by text: a string's every position closes with the same text). */
  readonly tokenize: (text: string) => number[];
  /**
   * The most characters one token's text may step a grammar through, and a few more (a character it leaves
   * unfinished): two states that read alike that far take the same tokens (StackPool.canonical).
   */
  readonly horizon: number;

  constructor(
    readonly tables: TokenTables,
    readonly trie: VocabTrie,
    /** Canonical tokens of forced text. */
    tokenize: (text: string) => number[],
    /** The compiled-grammar cache's bounds. Default: ENGINE_GRAMMAR_CACHE. */
    cacheLimits: { readonly bytes: number; readonly entries: number } = ENGINE_GRAMMAR_CACHE,
  ) {
    this.cacheLimits = cacheLimits;
    this.tokenize = rememberingTokenizer(tokenize);
    this.grammars = new PoolCache(cacheLimits);
    const n = tables.vocabSize;
    this.special = new Uint8Array(n);
    for (const a of tables.addedTokens) if (a.token < n) this.special[a.token] = 1;
    for (const t of tables.eogTokens) if (t < n) this.special[t] = 1;
    const partial = new Uint8Array(n);
    for (const t of tables.partialUtf8Tokens) partial[t] = 1;
    const isText = (t: number) => !this.special[t] && !partial[t] && !!tables.texts[t];
    const textOf = (t: number) => (isText(t) ? tables.texts[t]! : "");
    this.chars = PackedLists.pack(
      Int32Array,
      n,
      (t) => {
        let count = 0;
        for (const _ of textOf(t)) count++;
        return count;
      },
      (t, data, at) => {
        for (const ch of textOf(t)) data[at++] = ch.codePointAt(0)!;
      },
    );
    this.eogTokens = tables.eogTokens;
    let longest = 0;
    for (let t = 0; t < n; t++) longest = Math.max(longest, trie.byteLengthOf(t));
    this.horizon = longest + 4;
    const strict = new TextDecoder("utf-8", { fatal: true });
    const isCut = (bytes: Uint8Array) => {
      try {
        strict.decode(bytes);
        return false;
      } catch {
        return true;
      }
    };
    const partialTokens = tables.partialUtf8Tokens.filter((t) => t < n && !this.special[t] && trie.bytesOf(t) !== undefined && isCut(trie.bytesOf(t)!));
    this.cut = new Uint8Array(n);
    for (const t of partialTokens) this.cut[t] = 1;
    this.cutTokens = partialTokens;
    const continuation = partialTokens.filter((t) => (trie.bytesOf(t)![0]! & 0xc0) === 0x80);
    this.continuationTokens = Int32Array.from(continuation);
    const placeable = new Set(partialTokens.filter((t) => (trie.bytesOf(t)![0]! & 0xc0) !== 0x80));
    const byFirst = new Map<number, number[]>();
    for (const t of placeable) {
      const first = trie.bytesOf(t)![0]!;
      const group = byFirst.get(first);
      if (group) group.push(t);
      else byFirst.set(first, [t]);
    }
    this.startingTokens = new Map([...byFirst].map(([b, list]) => [b, Int32Array.from(list)]));
  }

  /** The vocabulary indexed for exact masks where free text may come (text-mask.ts); built on first use. */
  get textIndex(): TextIndex {
    if (this.index) return this.index;
    this.index = buildTextIndex({
      vocabSize: this.tables.vocabSize,
      codePoints: (t) => this.codePoints(t),
      bytes: (t) => this.trie.bytesOf(t),
      isSpecial: (t) => this.special[t] === 1,
      cutStarting: [...this.startingTokens.values()].flatMap((group) => [...group]),
    });
    warmTextMasks(this.index, this);
    return this.index;
  }

  /**
   * The same vocabulary, its indexes shared (the text index built first), with an empty compiled-grammar cache:
   * what a grammar costs cold in a runtime whose model is loaded and indexed (the token-cost bench times each tool
   * list so).
   */
  withEmptyGrammarCache(): EngineVocab {
    void this.textIndex;
    const copy = Object.create(EngineVocab.prototype) as EngineVocab;
    Object.assign(copy, this);
    copy.grammars = new PoolCache(this.cacheLimits);
    return copy;
  }

  /** Whether a token's bytes cut a character (it is stepped byte by byte); false for whole text and special tokens. */
  isCut(token: number): boolean {
    return this.cut[token] === 1;
  }

  /** A token's bytes; undefined for special tokens. */
  bytes(token: number): Uint8Array | undefined {
    return this.trie.bytesOf(token);
  }

  /** The code points of a text token (a view of the shared buffer), or undefined (special, partial UTF-8, or empty). */
  codePoints(token: number): Int32Array | undefined {
    return this.chars.list(token);
  }

  /** Whether a token is text: whole UTF-8, not special, not empty (codePoints answers, without making a view). */
  isText(token: number): boolean {
    return this.chars.lengthOf(token) > 0;
  }

  isSpecial(token: number): boolean {
    return this.special[token] === 1;
  }

  isEog(token: number): boolean {
    return this.eogTokens.includes(token);
  }

  /**
   * The pool of `gbnf`'s compiled program (compiled on first use). A full pool is replaced for new matchers
   * (the ones holding it keep it). Throws GbnfError / EngineLimitError on a grammar the engine refuses.
   */
  poolFor(gbnf: string): StackPool {
    return this.grammars.poolFor(gbnf);
  }

  /** The compiled-grammar cache's footprint: each grammar's estimated bytes, their sum and the budget. */
  grammarCacheReport(): PoolCacheReport {
    return this.grammars.report();
  }
}
