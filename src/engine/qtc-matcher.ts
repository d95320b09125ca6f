// Owns: QtcMatcher, the qtc constraint engine's per-sequence grammar state (the Matcher interface, with no
// llama.cpp grammar state): accept tokens, the exact allowed next set at every position (cached per parser state),
// the forced continuation, the closing of the current call, fork, rollback, and taking a sampled token. A sampler
// that honours the mask never draws a refused token; one that did not (a caller's own loop) gets the longest
// allowed prefix of it instead, counted in `replaced`, so nothing the grammar refuses is ever fed.

import { fail, internal, QtcException } from "../errors.js";
import type { EngineVocab } from "./engine-vocab.js";
import { GbnfError } from "./gbnf-program.js";
import { planTokens, type ForcedPiece } from "./jump-forward.js";
import { acceptInOrder, type Continuation, type Matcher, type MatcherGrammar, type NextTokens } from "./matcher.js";
import { DEAD, EngineLimitError, type StackPool, type StateId } from "./stack-pool.js";
import { textMask } from "./text-mask.js";
import { setBit, wordsFor } from "./token-bits.js";
import { allowedTextTokens } from "./token-mask.js";
import { byteMayStart, stepBytes, type Partial, type Position } from "./utf8-steps.js";

/** Most steps a closing walk takes (characters and tags). */
const CLOSURE_MAX_STEPS = 4096;
/** Most states the closing search visits before it gives up (no closing: the budget guard refuses to open a call). */
const CLOSING_SEARCH_STATES = 20_000;
/** Characters every free-text position allows (where text-mask.ts answers instead of the trie walk). */
const TEXT_PROBES = [0x61, 0x65];
/** ASCII steps a closing walk tries first at a free position without a closer (as the llama.cpp prober). */
const COMMON_FIRST = [..."ea_s0 t\"/.,:}\n"].map((c) => c.charCodeAt(0));
/** COMMON_FIRST, then every other ASCII character. */
const ASCII_ORDER = [...COMMON_FIRST, ...Array.from({ length: 128 }, (_, i) => i).filter((c) => !COMMON_FIRST.includes(c))];

/** The positions before each accepted token, newest first; immutable, so a fork shares its matcher's past. */
interface Past extends Position {
  prev: Past | undefined;
}

export class QtcMatcher implements Matcher {
  ms = 0;
  /** Sampled tokens refused and replaced: 0 under the mask (read by tests and the bench). */
  replaced = 0;
  private depth = 0;

  private constructor(
    private at: StateId,
    private readonly pool: StackPool,
    private readonly vocab: EngineVocab,
    readonly grammar: MatcherGrammar,
    /** The grammar's special tokens and the vocabulary's end tokens, each once (shared by forks: look-aheads fork per candidate). */
    private readonly specials: readonly number[],
    private past: Past | undefined = undefined,
    /** A character the last token began and did not finish (its next token must finish or go on with it). */
    private partial: Partial | undefined = undefined,
  ) {}

  /** A matcher at the grammar's start (compiled once per GBNF text per runtime). Throws on a grammar it refuses. */
  static create(grammar: MatcherGrammar, vocab: EngineVocab): QtcMatcher {
    const t0 = performance.now();
    const pool = vocab.poolFor(grammar.gbnf);
    const m = new QtcMatcher(pool.root, pool, vocab, grammar, [...new Set([...grammar.specialTokens, ...vocab.eogTokens])]);
    m.ms += performance.now() - t0;
    return m;
  }

  /** The compiled grammar's estimated bytes (its pool: program, states, cached steps and masks). */
  get footprintBytes(): number {
    return this.pool.bytes;
  }

  /** Parses (stacks) the current state holds: what one step's work scales with (read by tests and the bench). */
  get parses(): number {
    return this.pool.tops(this.at).length;
  }

  canBeNext(token: number): boolean {
    return this.move(token) !== undefined;
  }

  accept(token: number): boolean {
    return this.timed(() => this.acceptInner(token));
  }

  acceptAll(tokens: readonly number[]): number[] {
    return acceptInOrder(tokens, (t) => this.accept(t));
  }

  takeSampled(token: number): number[] {
    if (this.accept(token)) return [token];
    return this.timed(() => {
      const taken = this.replacement(token);
      if (!taken) internal("the constraint engine has no token to continue with");
      this.replaced++;
      for (const t of taken) if (!this.acceptInner(t)) internal("the constraint engine refused its own replacement token");
      return taken;
    });
  }

  nextTokens(): NextTokens {
    return this.timed(() => {
      // Inside a character: exactly the tokens that finish it (or go on with it) as the grammar allows.
      if (this.partial) return { kind: "set", tokens: this.completions() };
      const cached = this.pool.masks.get(this.at);
      if (cached) return cached;
      // Deep in a bounded string, the position masks as the same one at a lower count: one walk serves them all.
      const as = this.pool.canonical(this.at, this.vocab.horizon);
      const mask = (as !== this.at ? this.pool.masks.get(as) : undefined) ?? this.maskAt(as);
      this.pool.rememberMask(as, mask);
      if (as !== this.at) this.pool.rememberMask(this.at, mask, true);
      return mask;
    });
  }

  /** The exact mask at a state with no character pending: the text chain where free text may come, the trie walk elsewhere. */
  private maskAt(at: StateId): NextTokens {
    const specials = this.specials.filter((s) => this.after(at, s) !== DEAD);
    const free = TEXT_PROBES.every((cp) => this.pool.step(at, cp) !== DEAD) ? textMask(this.pool, this.vocab, at, specials) : undefined;
    if (free) return free;
    const tokens = specials.slice();
    for (const t of allowedTextTokens(this.pool, this.vocab.trie, at)) tokens.push(t);
    for (const t of this.partialTokensAt(at)) tokens.push(t);
    return maskOf(tokens, this.vocab.tables.vocabSize);
  }

  forcedContinuation(maxSteps: number): Continuation {
    return this.timed(() => {
      if (this.partial) return { tokens: [], ends: false };
      const cached = this.pool.plans.forced[this.at];
      // A cached run that fits the steps asked for is the same run (it stopped on its own, not at the limit).
      if (cached && cached.steps! < maxSteps) return { tokens: [...cached.tokens], ends: cached.ends };
      const pieces: ForcedPiece[] = [];
      const run = this.forcedRun(this.at, maxSteps, pieces, undefined);
      const plan = planTokens({ pieces, ends: run.ends }, this.vocab.tokenize);
      if (run.steps < maxSteps) this.pool.rememberPlan("forced", this.at, { ...plan, tokens: [...plan.tokens], steps: run.steps });
      return plan;
    });
  }

  closing(): number[] | undefined {
    return this.timed(() => {
      if (this.partial) return this.closingFromPartial();
      const cached = this.pool.plans.closing[this.at];
      if (cached !== undefined) return cached ? [...cached.tokens] : undefined;
      const tokens = this.closingOf();
      this.pool.rememberPlan("closing", this.at, tokens ? { tokens: [...tokens], ends: true } : null);
      return tokens;
    });
  }

  keptBeside(what: string, context: string, compute: () => number[] | undefined): number[] | undefined {
    // Mid-character the position is more than a state: computed each time.
    if (this.partial) return compute();
    const known = this.pool.keptBeside(this.at, what, context);
    if (known !== undefined) return known ? [...known] : undefined;
    const tokens = compute();
    this.pool.keepBeside(this.at, what, context, tokens ? [...tokens] : null);
    return tokens;
  }

  /**
   * The closing from the current state, computed (see closing()): the walk first (cheap, and the closing tests
   * pin), then, where the walk finds none (a closer a free string takes as text, over and over), a search.
   */
  private closingOf(): number[] | undefined {
    return this.walkClosing() ?? this.searchClosing();
  }

  /**
   * The shortest closing by steps (a character or a special token), breadth first over the pool's states up to
   * CLOSING_SEARCH_STATES: it ends at an accepting state or right after the call's close token.
   */
  private searchClosing(): number[] | undefined {
    const close = this.grammar.closeToken;
    const from = new Map<StateId, { prev: StateId; piece: ForcedPiece } | null>([[this.at, null]]);
    const path = (end: StateId, last?: ForcedPiece) => {
      const pieces: ForcedPiece[] = last ? [last] : [];
      for (let link = from.get(end); link; link = from.get(link.prev)) pieces.push(link.piece);
      const merged: ForcedPiece[] = [];
      for (const p of pieces.reverse()) push(merged, p.kind === "text" ? { ...p } : p);
      return planTokens({ pieces: merged, ends: true }, this.vocab.tokenize).tokens;
    };
    let frontier = [this.at];
    while (frontier.length > 0) {
      const next: StateId[] = [];
      for (const s of frontier) {
        if (this.pool.accepts(s)) return path(s);
        const { cps, tokens } = this.pool.edges(s);
        if (tokens.includes(close)) return path(s, { kind: "special", token: close });
        const steps: [StateId, ForcedPiece][] = [
          ...cps.map((cp): [StateId, ForcedPiece] => [this.pool.step(s, cp), { kind: "text", text: String.fromCodePoint(cp) }]),
          ...tokens.map((t): [StateId, ForcedPiece] => [this.pool.stepToken(s, t), { kind: "special", token: t }]),
        ];
        for (const [to, piece] of steps) {
          if (to === DEAD || from.has(to)) continue;
          if (from.size >= CLOSING_SEARCH_STATES) return undefined;
          from.set(to, { prev: s, piece });
          next.push(to);
        }
      }
      frontier = next;
    }
    return undefined;
  }

  /** The closing walk: forced text, a value closer, the close tag, or the first ASCII character the state takes. */
  private walkClosing(): number[] | undefined {
    const pieces: ForcedPiece[] = [];
    const close = this.grammar.closeToken;
    let at = this.at;
    for (let step = 0; step < CLOSURE_MAX_STEPS; step++) {
      const run = this.forcedRun(at, CLOSURE_MAX_STEPS, pieces, close);
      if (run.ends || run.stopped) return planTokens({ pieces, ends: true }, this.vocab.tokenize).tokens;
      at = run.state;
      let done = false;
      for (const closer of this.grammar.valueClosers) {
        const next = this.stepText(at, closer);
        if (next !== DEAD) {
          push(pieces, { kind: "text", text: closer });
          at = next;
          done = true;
          break;
        }
      }
      if (done) continue;
      const tag = this.pool.stepToken(at, close);
      if (tag !== DEAD) {
        pieces.push({ kind: "special", token: close });
        return planTokens({ pieces, ends: true }, this.vocab.tokenize).tokens;
      }
      const ascii = ASCII_ORDER.find((cp) => this.pool.step(at, cp) !== DEAD);
      if (ascii === undefined) return undefined;
      push(pieces, { kind: "text", text: String.fromCharCode(ascii) });
      at = this.pool.step(at, ascii);
    }
    return undefined;
  }

  fork(): QtcMatcher {
    return new QtcMatcher(this.at, this.pool, this.vocab, this.grammar, this.specials, this.past, this.partial);
  }

  rollback(count: number): void {
    if (!Number.isInteger(count) || count < 0) fail("invalid_option", `rollback(${count}): the count of tokens to undo must be a whole number, 0 or more`);
    let past = this.past;
    let to = this.position();
    for (let i = 0; i < count; i++) {
      if (!past) fail("invalid_option", `rollback(${count}): only ${i} accepted tokens to undo; roll back at most that many`);
      to = past;
      past = past.prev;
    }
    this.at = to.at;
    this.partial = to.partial;
    this.past = past;
  }

  /** Forced steps from `at` (ASCII characters and special tokens) appended to `pieces`. */
  private forcedRun(at: StateId, maxSteps: number, pieces: ForcedPiece[], stopToken: number | undefined): { state: StateId; ends: boolean; stopped: boolean; steps: number } {
    let step = 0;
    for (; step < maxSteps; step++) {
      const one = this.pool.single(at);
      if (!one) break;
      if (one.kind === "end") return { state: at, ends: true, stopped: false, steps: step };
      if (one.kind === "token") {
        pieces.push({ kind: "special", token: one.token });
        at = this.pool.stepToken(at, one.token);
        if (one.token === stopToken) return { state: at, ends: false, stopped: true, steps: step + 1 };
        continue;
      }
      if (one.cp >= 0x80) break; // a multi-byte character: left to sampling
      push(pieces, { kind: "text", text: String.fromCharCode(one.cp) });
      at = this.pool.step(at, one.cp);
    }
    return { state: at, ends: false, stopped: false, steps: step };
  }

  /** The position after `token` from the current one; undefined when refused. */
  private move(token: number): Position | undefined {
    const special = this.vocab.isSpecial(token);
    // Whole characters step by code point (cached per state); a token cut inside one, or one after it, by bytes.
    if (!this.partial && (special || this.vocab.isText(token))) {
      const at = this.after(this.at, token);
      return at === DEAD ? undefined : { at, partial: undefined };
    }
    // A text token with U+FFFD in it is neither (its cps are withheld): refused, as a broken sequence would be.
    if (special || !(this.vocab.isCut(token) || this.vocab.isText(token))) return undefined;
    return stepBytes(this.pool, this.position(), this.vocab.bytes(token)!);
  }

  private position(): Position {
    return { at: this.at, partial: this.partial };
  }

  /** The tokens that may follow a token that ended mid-character (they begin with its missing bytes). */
  private completions(): number[] {
    const out: number[] = [];
    const from = this.position();
    for (const t of this.vocab.continuationTokens) if (stepBytes(this.pool, from, this.vocab.bytes(t)!)) out.push(t);
    return out;
  }

  /** The tokens that cut a character at their end the state takes (only where a non-ASCII character may come). */
  private partialTokensAt(at: StateId): number[] {
    const extra: number[] = [];
    if (!this.pool.meets(at, 0x80, 0x10ffff)) return extra;
    const from: Position = { at, partial: undefined };
    for (const [first, group] of this.vocab.startingTokens) {
      if (!byteMayStart(this.pool, at, first)) continue;
      for (const t of group) if (stepBytes(this.pool, from, this.vocab.bytes(t)!)) extra.push(t);
    }
    return extra;
  }

  /**
   * The closing from inside a character: a token of continuation bytes alone that goes on with it, then the closing
   * from there. Such a token never begins another character, so each step shortens this one: at most 3 deep (a token
   * that finished it and began a new one could lead back here without end).
   */
  private closingFromPartial(): number[] | undefined {
    for (const t of this.completions()) {
      if (!this.vocab.bytes(t)!.every(isContinuationByte)) continue;
      const next = this.fork();
      next.acceptInner(t);
      const rest = next.closing();
      if (rest) return [t, ...rest];
    }
    return undefined;
  }

  /** The state after a whole-UTF-8 or special token from `at` (DEAD when refused). */
  private after(at: StateId, token: number): StateId {
    const { pool, vocab } = this;
    if (vocab.isSpecial(token)) return vocab.isEog(token) ? (pool.accepts(at) ? at : DEAD) : pool.stepToken(at, token);
    const cps = vocab.codePoints(token);
    if (!cps) return DEAD;
    for (let i = 0; i < cps.length && at !== DEAD; i++) at = pool.step(at, cps[i]!);
    return at;
  }

  private acceptInner(token: number): boolean {
    const next = this.move(token);
    if (!next) return false;
    this.past = { at: this.at, partial: this.partial, prev: this.past };
    this.at = next.at;
    this.partial = next.partial;
    return true;
  }

  private stepText(at: StateId, text: string): StateId {
    for (const ch of text) {
      at = this.pool.step(at, ch.codePointAt(0)!);
      if (at === DEAD) break;
    }
    return at;
  }

  /**
   * What to feed instead of a refused sampled token: the longest prefix of its text that is one token the
   * grammar allows; else the closing's next token; else any allowed special token; else nothing.
   */
  private replacement(token: number): number[] | undefined {
    if (this.partial) {
      const t = this.closingStep();
      return t === undefined ? undefined : [t];
    }
    const cps = this.vocab.codePoints(token);
    if (cps) {
      // The longest prefix the grammar takes, by cached steps; then the longest of those that is one token.
      let at = this.at;
      let n = 0;
      while (n < cps.length - 1) {
        const next = this.pool.step(at, cps[n]!);
        if (next === DEAD) break;
        at = next;
        n++;
      }
      for (; n > 0; n--) {
        const toks = this.vocab.tokenize(String.fromCodePoint(...cps.subarray(0, n)));
        if (toks.length === 1 && this.canBeNext(toks[0]!)) return toks;
      }
    }
    // An end or a tag where the grammar wants more: the closing's next token; a character it refuses: a letter.
    const tries = cps ? [() => this.asciiStep(), () => this.closingStep()] : [() => this.closingStep(), () => this.asciiStep()];
    for (const attempt of tries) {
      const t = attempt();
      if (t !== undefined) return [t];
    }
    for (const s of this.specials) if (!this.vocab.isEog(s) && this.canBeNext(s)) return [s];
    return undefined;
  }

  private closingStep(): number | undefined {
    const closing = this.closing();
    return closing && closing.length > 0 && this.canBeNext(closing[0]!) ? closing[0] : undefined;
  }

  /** The first single-character ASCII token the grammar takes (ASCII_ORDER). */
  private asciiStep(): number | undefined {
    const bytes = this.vocab.tables.byteTokens;
    const cp = ASCII_ORDER.find((c) => c >= 0x20 && this.pool.step(this.at, c) !== DEAD);
    const token = cp === undefined ? undefined : bytes?.[cp];
    return token !== undefined && this.canBeNext(token) ? token : undefined;
  }

  /** Time `work` into `ms` (nested calls are counted once, by the outermost). */
  private timed<T>(work: () => T): T {
    if (this.depth > 0) return work();
    const t0 = performance.now();
    this.depth++;
    try {
      return work();
    } finally {
      this.depth--;
      this.ms += performance.now() - t0;
    }
  }
}

/**
 * qtc's engine at the grammar's start; a grammar it will not hold is refused as `schema_too_large`. The compiler's
 * bounds and the engine's differ (a repetition the engine unrolls past its rule limit): the caller's tools are too
 * large to constrain, which is bad input, not a crash.
 */
export function createQtcMatcher(grammar: MatcherGrammar, vocab: EngineVocab): QtcMatcher {
  try {
    return QtcMatcher.create(grammar, vocab);
  } catch (e) {
    if (e instanceof GbnfError || e instanceof EngineLimitError) {
      throw new QtcException({ code: "schema_too_large", message: `the tools are too large for qtc's constraint engine: ${e.message}; simplify the schemas or send fewer tools` });
    }
    throw e;
  }
}

const isContinuationByte = (b: number) => (b & 0xc0) === 0x80;

/**
 * A walked mask as a list, or as a bitset where it allows half the vocabulary or more: there every consumer takes
 * it as free text (listedTokens), and listing, filtering and copying some 146,000 ids at each such state (a key
 * the schema leaves open beside listed names) cost more than the walk itself.
 */
function maskOf(tokens: number[], vocabSize: number): NextTokens {
  if (tokens.length * 2 < vocabSize) return { kind: "set", tokens };
  const allowed = new Uint32Array(wordsFor(vocabSize));
  let count = 0;
  for (const t of tokens) count += setBit(allowed, t);
  return { kind: "bits", allowed, count, vocabSize };
}

function push(pieces: ForcedPiece[], piece: ForcedPiece): void {
  const last = pieces[pieces.length - 1];
  if (piece.kind === "text" && last?.kind === "text") last.text += piece.text;
  else pieces.push(piece);
}
