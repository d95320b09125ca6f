// Owns: judging texts and token sequences with xgrammar itself (web-xgrammar over the Qwen3 vocabulary, or another
// byte-level one the caller gives): one session holds the WASM module, the tokenizer info and a compiler, and
// compiles each grammar once.

import { byteLevelTokenizerInfo, loadXgrammar, type XgCompiled, type XgCompiler, type XgrammarModule } from "./xgrammar-wasm.js";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";
import { readQwen3Vocab } from "../model/qwen3-vocab.js";
import { seededRandom } from "../random.js";

/** A random walk through a grammar: tokens sampled under xgrammar's mask, and what each mask cost. */
export interface XgWalk {
  tokens: number[];
  /** µs per `getNextTokenBitmask` call, one per sampled token. */
  maskMicros: number[];
  /** The walk ended on a stop token (false: it ran to maxTokens). */
  ended: boolean;
}

export interface XgWalkOptions {
  seed: number;
  maxTokens: number;
  /**
   * Tokens chosen, when the mask allows one, with probability `preferShare` (structure: quotes, braces, tags, the
   * end token), so random walks close what they open instead of wandering the whole vocabulary. Default: none.
   */
  prefer?: readonly number[];
  /** Default: 0.3. */
  preferShare?: number;
}

/** A byte-level vocabulary for a session: GGUF-shaped spellings and types (ids = indices) and the ids that stop. */
export interface XgVocabulary {
  tokens: readonly string[];
  tokenTypes: readonly number[];
  /** The first one ends an accepted text (`accepts`). */
  stops: readonly number[];
}

/** xgrammar over one vocabulary (Qwen3's by default): compile grammars, check texts, build matchers for sampling. */
export class XgrammarSession {
  private constructor(
    readonly xg: XgrammarModule,
    private readonly compiler: XgCompiler,
    /** The vocabulary's byte-level spellings, ids = indices. */
    readonly vocab: readonly string[],
    private readonly stops: readonly number[],
  ) {}

  /** Load the bundle and the vocabulary (about 1.5 s here for Qwen3's). Default vocabulary: Qwen3's. */
  static async create(vocabulary?: XgVocabulary): Promise<XgrammarSession> {
    const xg = loadXgrammar();
    const v = vocabulary ?? { ...(await readQwen3Vocab()), stops: [QWEN3_TOKENS.imEnd.token, QWEN3_TOKENS.endOfText.token] };
    const info = await byteLevelTokenizerInfo(xg, v, v.stops);
    return new XgrammarSession(xg, await xg.GrammarCompiler.createGrammarCompiler(info, false), v.tokens, v.stops);
  }

  /** Compile EBNF (throws xgrammar's parser error, which it also prints to stderr). */
  compile(ebnf: string): Promise<XgCompiled> {
    return this.compiler.compileGrammar(ebnf);
  }

  /** True when the whole text is a complete sentence of the grammar (the turn's end token is then accepted). */
  async accepts(compiled: XgCompiled, text: string): Promise<boolean> {
    const m = await this.xg.GrammarMatcher.createGrammarMatcher(compiled);
    try {
      return m._acceptString(text) && m.acceptToken(this.stops[0]!);
    } finally {
      m.dispose();
    }
  }

  /** True when every token is accepted in turn and the grammar may end after them. */
  async acceptsTokens(compiled: XgCompiled, tokens: readonly number[]): Promise<boolean> {
    const m = await this.xg.GrammarMatcher.createGrammarMatcher(compiled);
    try {
      return tokens.every((t) => m.acceptToken(t)) && m.acceptToken(this.stops[0]!);
    } finally {
      m.dispose();
    }
  }

  /** Ids of the tokens spelled exactly so (byte-level spelling: `Ċ` is a newline, `Ġ` a space); unknown ones left out. */
  tokenIds(spellings: readonly string[]): number[] {
    const index = new Map<string, number>();
    for (let id = 0; id < this.vocab.length; id++) if (!index.has(this.vocab[id]!)) index.set(this.vocab[id]!, id);
    return spellings.map((s) => index.get(s)).filter((id): id is number => id !== undefined);
  }

  /** Sample tokens uniformly among those xgrammar's mask allows (seeded), as a constrained server would. */
  async walk(compiled: XgCompiled, o: XgWalkOptions): Promise<XgWalk> {
    const m = await this.xg.GrammarMatcher.createGrammarMatcher(compiled);
    const random = seededRandom(o.seed);
    const share = o.preferShare ?? 0.3;
    const walk: XgWalk = { tokens: [], maskMicros: [], ended: false };
    try {
      while (walk.tokens.length < o.maxTokens && !m.isTerminated()) {
        const t0 = performance.now();
        const mask = await m.getNextTokenBitmask();
        walk.maskMicros.push((performance.now() - t0) * 1000);
        const token = pick(mask, this.vocab.length, random, random() < share ? (o.prefer ?? []) : []);
        if (token === undefined || !m.acceptToken(token)) break;
        if (this.stops.includes(token)) {
          walk.ended = true;
          break;
        }
        walk.tokens.push(token);
      }
      return walk;
    } finally {
      m.dispose();
    }
  }

  dispose(): void {
    this.compiler.dispose();
  }
}

/** One text against one EBNF grammar in xgrammar (loads the bundle each call: for the CLI). */
export async function xgrammarAccepts(ebnf: string, text: string): Promise<boolean> {
  const session = await XgrammarSession.create();
  try {
    return session.accepts(await session.compile(ebnf), text);
  } finally {
    session.dispose();
  }
}

const allowed = (mask: Int32Array, id: number) => ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;

/** A preferred allowed token when there is one, else a uniform draw among the allowed ones. */
function pick(mask: Int32Array, vocabSize: number, random: () => number, prefer: readonly number[]): number | undefined {
  const preferred = prefer.filter((id) => allowed(mask, id));
  if (preferred.length > 0) return preferred[Math.floor(random() * preferred.length)];
  let count = 0;
  for (let w = 0; w < mask.length; w++) count += popcount(mask[w]!);
  if (count === 0) return undefined;
  let k = Math.floor(random() * count);
  for (let id = 0; id < vocabSize; id++) if (allowed(mask, id) && k-- === 0) return id;
  return undefined;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
