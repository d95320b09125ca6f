// Owns: the engine's matcher for what a context-free grammar cannot say: a grammar Matcher together with the call's
// semantic state (per open object the keys written, per array of distinct items the items written; see
// key-guard.ts). Its mask is the grammar's less the tokens that would complete a key or an item a second time, or
// lead only to one; `accept` refuses such a token; its closing writes distinct keys; fork and rollback carry the
// state with the grammar's. The runtime, the bench and the checkers hold keys and items through this one matcher.

import type { EngineVocab } from "../engine-vocab.js";
import { acceptInOrder, listedTokens, type Continuation, type Matcher, type MatcherGrammar, type NextTokens } from "../matcher.js";
import { clearBit } from "../token-bits.js";
import { distinctClosing } from "./distinct-closing.js";
import type { KeyTracker, KeyVocab } from "./key-guard.js";

/** The tokens accepted since the root matcher was made, newest first (shared by forks; never changed). */
interface Fed {
  readonly token: number;
  readonly prev: Fed | undefined;
}

/** What the state bans from the grammar's mask: these tokens, and (`cut`) every token that cuts a character. */
interface Bans {
  readonly tokens: ReadonlySet<number>;
  readonly cut: boolean;
}

const NOTHING_BANNED: Bans = { tokens: new Set(), cut: false };
/** No bytes held: every token begins where a character may. */
const NOTHING_HELD = new Uint8Array(0);

export class SemanticMatcher implements Matcher {
  /** Milliseconds spent on the semantic state (bans, feeding, closings), beside the grammar's own. */
  semanticMs = 0;
  /** The mask at the current position and what the state banned from the grammar's (dropped on every move). */
  private here: { mask: NextTokens; banned: Bans } | undefined;
  /** The state's fingerprint at the current position (dropped on every move). */
  private print: string | undefined;

  private constructor(
    /** The grammar's matcher: the state's look-aheads walk forks of it. */
    readonly inner: Matcher,
    private state: KeyTracker,
    private readonly vocab: KeyVocab,
    private readonly engine: EngineVocab,
    /** The state where the matcher was wrapped, never fed: a rollback replays the tokens onto a copy of it. */
    private readonly origin: KeyTracker,
    private fed: Fed | undefined,
    /** The bytes of a character a token began and none has finished yet (the state reads whole characters). */
    private held: Uint8Array,
  ) {}

  /** `inner` with `state` beside it, both at the start of what the state reads. */
  static wrap(inner: Matcher, state: KeyTracker, vocab: KeyVocab, engine: EngineVocab): SemanticMatcher {
    return new SemanticMatcher(inner, state, vocab, engine, state.clone(), undefined, NOTHING_HELD);
  }

  get ms(): number {
    return this.inner.ms + this.semanticMs;
  }

  set ms(value: number) {
    this.semanticMs = value - this.inner.ms;
  }

  get grammar(): MatcherGrammar {
    return this.inner.grammar;
  }

  get footprintBytes(): number | undefined {
    return this.inner.footprintBytes;
  }

  /** Whether some key or item is compared with earlier ones at this position (where the state may ban). */
  private get watching(): boolean {
    return this.state.mayBan || this.state.comparing;
  }

  canBeNext(token: number): boolean {
    const { banned } = this.atPosition();
    return this.inner.canBeNext(token) && !banned.tokens.has(token) && !(banned.cut && this.engine.isCut(token));
  }

  accept(token: number): boolean {
    if (!this.inner.accept(token)) return false;
    if (!this.timed(() => this.feed(token))) return true;
    this.rollback(1);
    return false;
  }

  acceptAll(tokens: readonly number[]): number[] {
    return acceptInOrder(tokens, (t) => this.accept(t));
  }

  /**
   * A sampled token. Drawn from this matcher's mask it is taken as is. A token from outside it (a sampler that
   * ignored the mask, or a mask the look-ahead could not narrow) that would complete a key or an item twice is
   * undone, and the distinct closing's next token is taken instead.
   */
  takeSampled(token: number): number[] {
    const taken = this.inner.takeSampled(token);
    const repeated = this.timed(() => taken.map((t) => this.feed(t)).some(Boolean));
    if (!repeated) return taken;
    this.rollback(taken.length);
    const instead = this.closing()?.[0];
    if (instead !== undefined && this.accept(instead)) return [instead];
    // No distinct way on: the grammar's own step (the parser refuses the repeat, `duplicate_key`).
    const again = this.inner.takeSampled(token);
    for (const t of again) this.feed(t);
    return again;
  }

  nextTokens(): NextTokens {
    return this.atPosition().mask;
  }

  forcedContinuation(maxSteps: number): Continuation {
    return this.inner.forcedContinuation(maxSteps);
  }

  closing(): number[] | undefined {
    // The budget guard asks at every step, and a closing that turns aside from repeats walks the state's look-aheads
    // token by token (milliseconds): such a closing is kept per grammar position and state, for the turns that
    // reach both again.
    return this.timed(() => distinctClosing(this.inner, this.state, this.vocab, (walk) => this.kept("closing", walk)));
  }

  /** `compute`'s answer, kept by the grammar's engine per position and state where it keeps such answers. */
  private kept(what: string, compute: () => number[] | undefined): number[] | undefined {
    if (!this.inner.keptBeside) return compute();
    this.print ??= this.state.fingerprint();
    return this.inner.keptBeside(what, this.print, compute);
  }

  fork(): SemanticMatcher {
    return new SemanticMatcher(this.inner.fork(), this.state.clone(), this.vocab, this.engine, this.origin, this.fed, this.held);
  }

  rollback(count: number): void {
    this.inner.rollback(count);
    let fed = this.fed;
    for (let i = 0; i < count; i++) fed = fed?.prev;
    const replay: number[] = [];
    for (let f = fed; f; f = f.prev) replay.push(f.token);
    this.state = this.origin.clone();
    this.held = NOTHING_HELD;
    this.fed = undefined;
    this.here = undefined;
    this.print = undefined;
    for (let i = replay.length - 1; i >= 0; i--) this.feed(replay[i]!);
  }

  /** The current position's mask and bans, computed once per position. */
  private atPosition(): { mask: NextTokens; banned: Bans } {
    if (this.here) return this.here;
    const next = this.inner.nextTokens();
    const banned = this.watching ? this.timed(() => this.bansFrom(next)) : NOTHING_BANNED;
    const mask = banned === NOTHING_BANNED ? next : this.timed(() => without(next, banned.tokens, banned.cut ? this.engine : undefined));
    return (this.here = { mask, banned });
  }

  /**
   * What the state bans from the grammar's mask `next`. Where a key or an item is compared with earlier ones,
   * tokens that cut a character are banned too: the state's look-ahead judges candidates by their text, where a cut
   * character is U+FFFD, and allowed there such tokens led a 2-character CJK key into one the object had. Where the
   * state would ban every token the grammar lists (a key space its look-ahead could not see through), it bans none:
   * `accept` still refuses a repeat.
   */
  private bansFrom(next: NextTokens): Bans {
    const listed = judgedOneByOne(next);
    // A few listed tokens are each judged with a look-ahead (milliseconds at a new state), so that answer is kept per
    // grammar position and state; free text is judged by a few suspects, cheaper than keeping its answer (kept at
    // every token of a MaskBench walk, the answers tripled the young generation's collection time).
    const judge = () => this.state.banned(this.inner, listed);
    const tokens = new Set(this.state.mayBan ? (listed ? this.kept("banned", judge) ?? [] : judge()) : []);
    // The cut tokens stay a flag, not a set: added one by one at every compared position (thousands in Qwen3's
    // vocabulary), they were most of the state's own time at the keys of MaskBench's open objects.
    const cut = this.state.comparing && this.engine.cutTokens.length > 0;
    const isBanned = (t: number) => tokens.has(t) || (cut && this.engine.isCut(t));
    if ((tokens.size === 0 && !cut) || (listed && listed.every(isBanned))) return NOTHING_BANNED;
    return { tokens, cut };
  }

  /** One accepted token into the state; true when it completed a key or an item a second time. */
  private feed(token: number): boolean {
    this.fed = { token, prev: this.fed };
    this.here = undefined;
    this.print = undefined;
    const bytes = this.engine.bytes(token);
    if (!bytes) return this.state.feed(this.vocab.texts[token] ?? "");
    const { text, held } = decodeHolding(this.held, bytes);
    this.held = held;
    return this.state.feed(text);
  }

  private timed<T>(work: () => T): T {
    const t0 = performance.now();
    try {
      return work();
    } finally {
      this.semanticMs += performance.now() - t0;
    }
  }
}

/**
 * Most tokens a bitset mask may allow for the state to judge them one by one. A wider mask is free text to it: it
 * judges the few tokens that could complete a key or an item it has (listing tens of thousands of tokens to judge
 * each was most of the state's time inside strings: 60 of 95 ms over the 100-tool walks).
 */
const JUDGED_ONE_BY_ONE = 1024;

/** The grammar's allowed tokens when few enough to judge one by one; undefined for free text. */
function judgedOneByOne(next: NextTokens): readonly number[] | undefined {
  if (next.kind === "set") return next.tokens;
  return next.count <= JUDGED_ONE_BY_ONE ? listedTokens(next) : undefined;
}

/**
 * `next` less the `banned` tokens, and less every token that cuts a character where `cut` (the vocabulary) is given
 * (a bitset is copied: the grammar's is cached per state).
 */
function without(next: NextTokens, banned: ReadonlySet<number>, cut: EngineVocab | undefined): NextTokens {
  if (next.kind === "set") return { kind: "set", tokens: next.tokens.filter((t) => !banned.has(t) && !cut?.isCut(t)) };
  const base = cut ? withoutCut(next, cut) : next;
  if (banned.size === 0) return base;
  const allowed = base.allowed.slice();
  let count = base.count;
  for (const t of banned) if (t >= 0 && t < next.vocabSize) count -= clearBit(allowed, t);
  return { kind: "bits", allowed, count, vocabSize: next.vocabSize };
}

/** A bitset mask less the cut tokens, per grammar bitset (every compared position of an open key cleared them anew). */
const cutFree = new WeakMap<Uint32Array, NextTokens & { kind: "bits" }>();

function withoutCut(next: NextTokens & { kind: "bits" }, cut: EngineVocab): NextTokens & { kind: "bits" } {
  const known = cutFree.get(next.allowed);
  if (known) return known;
  const allowed = next.allowed.slice();
  let count = next.count;
  for (const t of cut.cutTokens) if (t >= 0 && t < next.vocabSize) count -= clearBit(allowed, t);
  const mask = { kind: "bits" as const, allowed, count, vocabSize: next.vocabSize };
  cutFree.set(next.allowed, mask);
  return mask;
}

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** The text of `held` then `bytes`, up to a character not yet finished, whose bytes are held for the next token. */
export function decodeHolding(held: Uint8Array, bytes: Uint8Array): { text: string; held: Uint8Array } {
  const all = held.length === 0 ? bytes : concat(held, bytes);
  const cut = unfinishedFrom(all);
  return { text: utf8.decode(all.subarray(0, cut)), held: cut === all.length ? NOTHING_HELD : all.slice(cut) };
}

/** Where a character that the bytes begin and do not finish starts (their length when none is unfinished). */
function unfinishedFrom(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const width = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return width > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
