// Owns: the qtc engine's pushdown automaton over a Program: parser states as interned sets of interned stacks
// (a stack is a linked list of frames; a frame is a position in the program and the frame below it), stepping a
// state by a code point or a special token, with every state and every transition cached, so a position the
// grammar reaches again (each call's name, each property's value) costs a map lookup. One pool per compiled
// grammar; its memory is bounded (see POOL_LIMITS): a full pool stops caching transitions, and the owner hands out
// a fresh pool to new matchers.

import { countedFamilies, type CountedFamilies } from "./count-shift.js";
import { alternativesOf, classMatches, classMeets, EL, type Program } from "./gbnf-program.js";
import type { NextTokens } from "./matcher.js";
import { FrameTable } from "./frame-table.js";
import { IntArena } from "./int-arena.js";
import { StampedKeys, StampedSet } from "./scratch-sets.js";

export const POOL_LIMITS = Object.freeze({
  /** Interned frames + states + cached transitions before the pool counts as full. */
  entries: 1_500_000,
  /**
   * Estimated bytes (program, frames, states, cached transitions, masks, plans) before the pool counts as full:
   * entries alone missed states of thousands of parses each (140-220 MB per grammar before).
   */
  bytes: 128 * 1024 * 1024,
  /** Most stacks one state may hold (an ambiguous grammar fails here instead of growing without end). */
  stacksPerState: 20_000,
  /** Most rule expansions one step may make (left recursion, nullable cycles). */
  expansionsPerStep: 200_000,
});

export class EngineLimitError extends Error {}

/** Where StackPool keeps an answer beside a caller's state: its pool state, the question, the caller's fingerprint. */
const besideKey = (state: StateId, what: string, context: string) => `${state} ${what} ${context}`;

/** A memoized plan of the matcher: tokens, whether the grammar ends after them, and the steps the run took. */
export interface Plan {
  tokens: number[];
  ends: boolean;
  steps?: number;
}

// A state's cuts: its code point intervals and the state each leads to, as a run in the pool's arena at offset c (a
// typed array per state was most of what cutting a new state cost). d[c] is the number of bounds b; d[c + 1 .. c + b]
// the bounds (bound i: the first code point of interval i + 1; interval 0 starts at 0); d[c + b + 1 + i] where
// interval i leads: -1 not computed yet, DEAD from the start where no top's class matches it, and -2 - j where the
// same tops match as in an earlier interval j (the step is the same: it moves those tops, whatever the character).

/** The interval of `cp` in the cuts at `c`: how many bounds are ≤ cp. */
function interval(d: Int32Array, c: number, cp: number): number {
  let lo = 0;
  let hi = d[c]!;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (d[c + 1 + mid]! <= cp) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where interval `i`'s target sits. */
const targetAt = (d: Int32Array, c: number, i: number) => c + d[c]! + 1 + i;
/** The first and last code point of interval `i`. */
const intervalStart = (d: Int32Array, c: number, i: number) => (i === 0 ? 0 : d[c + i]!);
const intervalEnd = (d: Int32Array, c: number, i: number) => (i < d[c]! ? d[c + i + 1]! - 1 : 0x10ffff);

/** A code point of [lo, hi] to stand for it: printable ASCII first, then the lowest that is not a surrogate. */
function representative(lo: number, hi: number): number | undefined {
  if (lo <= 0x7e && hi >= 0x20) return Math.max(lo, 0x20);
  if (lo < 0xd800 || lo > 0xdfff) return lo;
  return hi >= 0xe000 ? 0xe000 : undefined;
}

/** A state id: index into the pool's states. DEAD is the state nothing can continue. */
export type StateId = number;
export const DEAD: StateId = 0;

const POS_BITS = 2 ** 23;
/** Most rules entered one inside another without reading a character. */
const MAX_DEPTH = 2000;
/** Most cut templates a pool keeps (see `cutTemplates`). */
const CUT_TEMPLATES = 4096;
/** Above PROGRAM_LIMITS.maxRules: (frame, rule) pairs as one number. */
const RULE_SPAN = 2 ** 19;

export class StackPool {
  /** Frames: each a position (index into program.code of its element) and the frame below (-1: bottom). */
  private readonly frames = new FrameTable();
  /** State id → its top frames (sorted) and whether some stack is complete (the grammar may end). */
  private readonly stateTops: Int32Array[] = [new Int32Array(0)];
  private readonly stateAccepts: boolean[] = [false];
  /** States by a hash of their tops and accepting flag (a bucket per hash: a number, or a list where two collide). */
  private readonly stateIds = new Map<number, number | number[]>();
  /**
   * Cached transitions, per state (never one map for the whole pool: growing a map of a million entries rehashes
   * all of them inside one token's step). Code points are cached by interval: the class boundaries of a state's
   * tops cut the code points into intervals whose members every top matches alike, so one advance serves a whole
   * interval (inside a string, every ordinary letter is one interval: a handful of advances per state, not 128).
   */
  private readonly cutsAt: number[] = [-1];
  /** The per-state runs: each state's cuts. */
  private readonly ints = new IntArena();
  private readonly tokenSteps: (Map<number, StateId> | undefined)[] = [undefined];
  /** Transitions cached so far (all kinds). */
  private cachedSteps = 0;
  /** Per-state memo for the matcher's exact masks, bounded with the pool. */
  readonly masks = new Map<StateId, NextTokens>();
  /** The program's counted families (count-shift.ts), found when a horizon is first given; null where it has none. */
  private families: CountedFamilies | null = null;
  /** Per state, the state it masks as (see `canonical`); -1: not known yet. */
  private readonly canonicalOf: number[] = [-1];
  /** The horizon the canonical states were found for. */
  private canonicalHorizon = -1;
  /** What the cached masks weigh in entries (a mask of n tokens or bitset words: 1 + n / 16). */
  private maskEntries = 0;
  private expansions = 0;
  /** Estimated bytes held (see `bytes`). */
  private held = 0;
  readonly root: StateId;
  /** What one step fills: the top frames it reaches, and the (continuation, rule) expansions it made (its cycle guard). */
  private readonly reached = new StampedSet();
  private readonly expanded = new StampedKeys();
  /** Whether the step completed a stack (the grammar may end after it). */
  private reachedEnd = false;
  /** The reached tops, sorted, while a step's state is looked up. */
  private sortBuffer = new Int32Array(256);
  /** A state's class tops and their ranges' edges, while its intervals are cut. */
  private readonly classTops: number[] = [];
  private edgeBuffer = new Int32Array(256);
  /**
   * Cuts by the classes a state's tops read (sorted class ids), before any step is cached in them: each position of a
   * bounded string is a state of its own whose tops read the classes the one before it read, and cutting each anew
   * was a quarter of a text mask's tail verdicts (sorting the classes' edges, matching each interval against them).
   */
  private readonly cutTemplates = new Map<string, Int32Array>();
  /** While a state's intervals are cut: the first interval each set of matching tops was met in. */
  private readonly firstWithTops = new Map<number, number>();

  constructor(readonly program: Program) {
    if (program.code.length / 2 >= POS_BITS) throw new EngineLimitError("the grammar is too large for the engine");
    this.held = programBytes(program);
    this.beginStep();
    for (const alt of alternativesOf(program, program.root)) this.expand(alt, -1);
    this.root = this.stateOf();
  }

  /** Clear what a step fills. */
  private beginStep(): void {
    this.reached.clear();
    // One cycle guard for the whole step: expanding a rule over the same continuation twice adds nothing new.
    this.expanded.clear();
    this.expansions = 0;
    this.reachedEnd = false;
  }

  /** Whether the pool holds so much that its owner should start a fresh one. */
  get full(): boolean {
    return this.frames.size + this.stateTops.length + this.cachedSteps + this.maskEntries > POOL_LIMITS.entries || this.held > POOL_LIMITS.bytes;
  }

  /**
   * The pool's estimated footprint in bytes: its program and everything interned and cached so far (what a cache of
   * compiled grammars weighs it by, and what a turn reports as its grammar's footprint).
   */
  get bytes(): number {
    return this.held;
  }

  /**
   * Per-state memo of the matcher's tokenized plans, indexed by state (`forced`: the forced continuation; `closing`:
   * the closing, null when none was found), so a state the turn reaches again costs no tokenizer call; weighed like
   * masks.
   */
  readonly plans: { forced: (Plan | undefined)[]; closing: (Plan | null | undefined)[] } = { forced: [undefined], closing: [undefined] };

  /** Cache a plan unless the pool is full. */
  rememberPlan(kind: "forced" | "closing", state: StateId, plan: Plan | null): void {
    const list = this.plans[kind];
    if (this.full || list[state] !== undefined) return;
    list[state] = plan as Plan;
    this.maskEntries += 1 + (plan ? plan.tokens.length >> 4 : 0);
    this.held += 64 + (plan ? plan.tokens.length * 8 : 0);
  }

  /**
   * Answers that depend on a caller's state as well (the semantic matcher's bans and distinct closings), by this
   * pool's state, the question and that caller's fingerprint; null for no answer. Weighed like plans.
   */
  private readonly besides = new Map<string, number[] | null>();

  keptBeside(state: StateId, what: string, context: string): number[] | null | undefined {
    return this.besides.get(besideKey(state, what, context));
  }

  /** Keep an answer beside a caller's state unless the pool is full. */
  keepBeside(state: StateId, what: string, context: string, tokens: number[] | null): void {
    if (this.full) return;
    const key = besideKey(state, what, context);
    if (this.besides.has(key)) return;
    this.besides.set(key, tokens);
    this.maskEntries += 1 + (tokens ? tokens.length >> 4 : 0);
    this.held += 64 + key.length * 2 + (tokens ? tokens.length * 8 : 0);
  }

  /** Cache a state's mask unless the pool is full (`shared`: the mask is cached for another state already). */
  rememberMask(state: StateId, mask: NextTokens, shared = false): void {
    if (this.full || this.masks.has(state)) return;
    this.masks.set(state, mask);
    // A listed mask weighs 4 bytes a token, a bitset its words; one shared with another state, its entry.
    const words = shared ? 0 : mask.kind === "set" ? mask.tokens.length : mask.allowed.length;
    this.maskEntries += 1 + (words >> 4);
    this.held += 64 + words * 4;
  }

  accepts(state: StateId): boolean {
    return this.stateAccepts[state]!;
  }

  /** Top frames' elements of a state: [kind, arg] pairs (a class or a special token). */
  tops(state: StateId): Int32Array {
    return this.stateTops[state]!;
  }

  /** The element (index into program.code) a top frame stands at. */
  posOf(frame: number): number {
    return this.frames.pos[frame]!;
  }

  /** Step by one code point. */
  step(state: StateId, cp: number): StateId {
    if (state === DEAD) return DEAD;
    let c = this.cutsAt[state]!;
    if (c < 0) {
      // A full pool caches nothing more: the step is taken on its own.
      if (this.full) return this.advance(state, EL.cls, cp);
      c = this.cut(state);
    }
    const d = this.ints.data;
    const at = targetAt(d, c, interval(d, c, cp));
    const cached = d[at]!;
    if (cached >= 0) return cached;
    // An interval the same tops match as an earlier one's leads where that one does.
    const sameAt = cached <= -2 ? targetAt(d, c, -2 - cached) : -1;
    const same = sameAt >= 0 ? d[sameAt]! : -1;
    const next = same >= 0 ? same : this.advance(state, EL.cls, cp);
    if (this.full) return next;
    this.cachedSteps++;
    // Read again: the advance may have grown the arena.
    this.ints.data[at] = next;
    if (sameAt >= 0) this.ints.data[sameAt] = next;
    return next;
  }

  /** The state's cuts as (array, offset): kept in the arena, or (a full pool) made for this call only. */
  private cutsOf(state: StateId): { d: Int32Array; c: number } {
    const known = this.cutsAt[state]!;
    if (known >= 0) return { d: this.ints.data, c: known };
    if (!this.full) {
      const c = this.cut(state);
      return { d: this.ints.data, c };
    }
    const own = new IntArena();
    const c = this.writeCuts(state, own);
    return { d: own.data, c };
  }

  /** Cut the state's intervals into the arena (see `cutsAt`): its offset. */
  private cut(state: StateId): number {
    const c = this.writeCuts(state, this.ints);
    const bounds = this.ints.data[c]!;
    this.cutsAt[state] = c;
    // The run weighs about as much as a few map entries more than the intervals.
    this.cachedSteps += bounds + 5;
    this.held += 32 + (2 * bounds + 2) * 4;
    return c;
  }

  /**
   * Write the state's intervals into `arena`: their offset. They follow from the classes its tops read alone, so
   * states that read the same classes share one cut (see `cutTemplates`).
   */
  private writeCuts(state: StateId, arena: IntArena): number {
    const { code, classes } = this.program;
    const clsTops = this.classTops;
    clsTops.length = 0;
    const tops = this.stateTops[state]!;
    for (let i = 0; i < tops.length; i++) {
      const pos = this.frames.pos[tops[i]!]!;
      if (code[pos] === EL.cls && !clsTops.includes(code[pos + 1]!)) clsTops.push(code[pos + 1]!);
    }
    clsTops.sort((a, b) => a - b);
    const key = clsTops.join(",");
    const template = this.cutTemplates.get(key);
    if (template) {
      const c = arena.alloc(template.length);
      arena.data.set(template, c);
      return c;
    }
    let edges = 0;
    for (const cls of clsTops) edges += classes[cls]!.ranges.length;
    if (edges > this.edgeBuffer.length) this.edgeBuffer = new Int32Array(Math.max(edges, this.edgeBuffer.length * 2));
    const all = this.edgeBuffer.subarray(0, edges);
    let k = 0;
    for (const cls of clsTops) {
      const { ranges } = classes[cls]!;
      for (let r = 0; r < ranges.length; r += 2) {
        all[k++] = ranges[r]!;
        all[k++] = ranges[r + 1]! + 1;
      }
    }
    all.sort();
    let distinct = 0;
    for (let i = 0; i < edges; i++) if (i === 0 || all[i] !== all[i - 1]) all[distinct++] = all[i]!;
    const c = arena.alloc(2 * distinct + 2);
    const d = arena.data;
    d[c] = distinct;
    d.set(all.subarray(0, distinct), c + 1);
    d.fill(-1, c + distinct + 1, c + 2 * distinct + 2);
    // An interval no top's class matches goes nowhere without an advance; one the same tops match as an earlier one
    // goes where it does (inside a string, the letters between `"`, `<` and a backslash: one advance, not four).
    const firstWith = this.firstWithTops;
    firstWith.clear();
    for (let i = 0; i <= distinct; i++) {
      const matching = this.matchingTops(clsTops, intervalStart(d, c, i));
      if (matching === 0) d[targetAt(d, c, i)] = DEAD;
      if (matching <= 0) continue;
      const first = firstWith.get(matching);
      if (first === undefined) firstWith.set(matching, i);
      else d[targetAt(d, c, i)] = -2 - first;
    }
    if (this.cutTemplates.size < CUT_TEMPLATES) {
      this.cutTemplates.set(key, d.slice(c, c + 2 * distinct + 2));
      this.held += 64 + key.length * 2 + (2 * distinct + 2) * 4;
    }
    return c;
  }

  /**
   * Which of the class tops match `cp`, as bits (top i: bit i); 0 none; -1 some, where there are more tops than bits
   * (no interval shares its step then).
   */
  private matchingTops(classes: readonly number[], cp: number): number {
    if (classes.length > 30) {
      for (const c of classes) if (classMatches(this.program, c, cp)) return -1;
      return 0;
    }
    let bits = 0;
    for (let i = 0; i < classes.length; i++) if (classMatches(this.program, classes[i]!, cp)) bits |= 1 << i;
    return bits;
  }

  /** Step by a special token (`<[id]>` in the grammar). */
  stepToken(state: StateId, token: number): StateId {
    if (state === DEAD) return DEAD;
    const cached = this.tokenSteps[state]?.get(token);
    if (cached !== undefined) return cached;
    const next = this.advance(state, EL.token, token);
    if (this.full) return next;
    this.cachedSteps++;
    this.held += 48;
    (this.tokenSteps[state] ??= new Map()).set(token, next);
    return next;
  }

  /** The state after the stacks whose top element (of `kind`) `matches` move past it. */
  private advance(state: StateId, kind: number, arg: number): StateId {
    const { code } = this.program;
    this.beginStep();
    const tops = this.stateTops[state]!;
    for (let i = 0; i < tops.length; i++) {
      const f = tops[i]!;
      const pos = this.frames.pos[f]!;
      if (code[pos] !== kind) continue;
      if (kind === EL.cls ? classMatches(this.program, code[pos + 1]!, arg) : code[pos + 1] === arg) this.expand(pos + 2, this.frames.below[f]!);
    }
    return this.stateOf();
  }

  /**
   * The edges out of a state, one per kind of next step: a code point for each interval some top's class matches
   * (printable ASCII where the interval has one; every code point of an interval leads to the same state), and
   * each special token a top stands at. What a search over the state's successors walks.
   */
  edges(state: StateId): { cps: number[]; tokens: number[] } {
    const cps: number[] = [];
    const tokens: number[] = [];
    if (state === DEAD) return { cps, tokens };
    const { d, c } = this.cutsOf(state);
    for (let i = 0; i <= d[c]!; i++) {
      if (d[targetAt(d, c, i)] === DEAD) continue;
      const cp = representative(intervalStart(d, c, i), intervalEnd(d, c, i));
      if (cp !== undefined) cps.push(cp);
    }
    const { code } = this.program;
    for (const f of this.stateTops[state]!) {
      const pos = this.frames.pos[f]!;
      if (code[pos] === EL.token && !tokens.includes(code[pos + 1]!)) tokens.push(code[pos + 1]!);
    }
    return { cps, tokens };
  }

  /**
   * Each run of [lo, hi] whose code points lead to one state, with that state: one step per interval of the state's
   * cuts (a text mask's link asked 128 steps of every state of a bounded string, one per ASCII character).
   */
  eachRun(state: StateId, lo: number, hi: number, visit: (from: number, to: number, target: StateId) => void): void {
    if (state === DEAD) return visit(lo, hi, DEAD);
    this.eachInterval(state, lo, hi, (from, to, rep) => visit(from, to, rep === undefined ? DEAD : this.step(state, rep)));
  }

  /**
   * The one state every code point of [lo, hi] leads to (surrogates aside: no UTF-8 spells them), or undefined
   * where they part: one step per interval the range overlaps, until two part.
   */
  targetOver(state: StateId, lo: number, hi: number): StateId | undefined {
    if (state === DEAD) return DEAD;
    let target: StateId | undefined;
    let parted = false;
    this.eachInterval(state, lo, hi, (_from, _to, rep) => {
      if (rep === undefined) return true;
      const next = this.step(state, rep);
      parted = target !== undefined && next !== target;
      target = next;
      return !parted;
    });
    return parted ? undefined : target;
  }

  /**
   * The intervals of a state's cuts that [lo, hi] overlaps, clipped to it, each with a code point standing for it
   * (undefined: surrogates only); stops where `visit` answers false.
   */
  private eachInterval(state: StateId, lo: number, hi: number, visit: (from: number, to: number, rep: number | undefined) => boolean | void): void {
    // The bounds are never rewritten, so a copy of the arena outgrown by the steps the visits take still reads right.
    const { d, c } = this.cutsOf(state);
    for (let i = interval(d, c, lo); i <= d[c]!; i++) {
      const start = Math.max(lo, intervalStart(d, c, i));
      if (start > hi) break;
      const end = Math.min(hi, intervalEnd(d, c, i));
      if (visit(start, end, representative(start, end)) === false) return;
    }
  }

  /** Whether some code point in [lo, hi] could come next (a partial UTF-8 prefix's range). */
  meets(state: StateId, lo: number, hi: number): boolean {
    const { code } = this.program;
    for (const f of this.stateTops[state]!) {
      const pos = this.frames.pos[f]!;
      if (code[pos] === EL.cls && classMeets(this.program, code[pos + 1]!, lo, hi)) return true;
    }
    return false;
  }

  /** Whether the state allows special token `token` next. */
  allowsToken(state: StateId, token: number): boolean {
    const { code } = this.program;
    for (const f of this.stateTops[state]!) {
      const pos = this.frames.pos[f]!;
      if (code[pos] === EL.token && code[pos + 1] === token) return true;
    }
    return false;
  }

  /**
   * The one thing that may come next, if there is exactly one: a code point, a special token, or the end.
   * Undefined when there are several (or none).
   */
  single(state: StateId): { kind: "cp"; cp: number } | { kind: "token"; token: number } | { kind: "end" } | undefined {
    const { code, classes } = this.program;
    let found: { kind: "cp"; cp: number } | { kind: "token"; token: number } | undefined;
    for (const f of this.stateTops[state]!) {
      const pos = this.frames.pos[f]!;
      let here: typeof found;
      if (code[pos] === EL.token) here = { kind: "token", token: code[pos + 1]! };
      else {
        const c = classes[code[pos + 1]!]!;
        if (c.negated || c.ranges.length !== 2 || c.ranges[0] !== c.ranges[1]) return undefined;
        here = { kind: "cp", cp: c.ranges[0]! };
      }
      if (!found) found = here;
      else if (found.kind !== here.kind || (found.kind === "cp" ? found.cp !== (here as { cp: number }).cp : found.token !== (here as { token: number }).token)) return undefined;
    }
    if (this.stateAccepts[state]) return found ? undefined : { kind: "end" };
    return found;
  }

  /**
   * The state `state` masks as: itself, or, deep in a counted family (a bounded string far from its bound), the same
   * position at the family's canonical count. Every derivation of at most `horizon` characters (the longest token,
   * and then some) from either state stays at counts where the families' members read alike, so the two take the
   * same tokens: their masks are equal, and the lower one's serves both (count-shift.ts). A state holding a count
   * below the canonical one is its own.
   */
  canonical(state: StateId, horizon: number): StateId {
    if (state === DEAD) return DEAD;
    if (horizon !== this.canonicalHorizon) {
      this.canonicalOf.fill(-1);
      this.canonicalHorizon = horizon;
      this.families = countedFamilies(this.program, horizon) ?? null;
    }
    const known = this.canonicalOf[state]!;
    if (known >= 0) return known;
    const canonical = this.families && !this.full ? this.shiftedState(state, this.families) : state;
    this.canonicalOf[state] = canonical;
    this.canonicalOf[canonical] = canonical;
    return canonical;
  }

  /** `state` with every counted frame lowered by one amount, so the least count is the canonical one (see `canonical`). */
  private shiftedState(state: StateId, families: CountedFamilies): StateId {
    const { pos, below } = this.frames;
    const tops = this.stateTops[state]!;
    let least = Infinity;
    for (let i = 0; i < tops.length; i++) {
      for (let f = tops[i]!; f !== -1; f = below[f]!) {
        const count = families.countOf(families.ruleAt(pos[f]!));
        if (count >= 0 && count < least) least = count;
      }
    }
    // No counted frame (least stays Infinity), or one at the floor or below: the state is its own.
    if (!Number.isFinite(least) || least <= families.floor) return state;
    const k = least - families.floor;
    const shifted = new Map<number, number>();
    const shift = (f: number): number => {
      if (f === -1) return -1;
      const done = shifted.get(f);
      if (done !== undefined) return done;
      const p = this.frames.pos[f]!;
      const counted = families.countOf(families.ruleAt(p)) >= 0;
      const id = this.frame(counted ? families.shiftDown(p, k) : p, shift(this.frames.below[f]!));
      shifted.set(f, id);
      return id;
    };
    const lowered = new Int32Array(tops.length);
    for (let i = 0; i < tops.length; i++) lowered[i] = shift(tops[i]!);
    return this.internTops(lowered, lowered.length, this.stateAccepts[state]!);
  }

  private frame(pos: number, next: number): number {
    const before = this.frames.size;
    const id = this.frames.intern(pos, next);
    // Two ints, and two to four slots of the index (a quarter to half full).
    if (this.frames.size !== before) this.held += 24;
    return id;
  }

  /** Add the terminal-topped stacks reachable from element `pos` over frame `next` to the step's reached tops. */
  private expand(pos: number, next: number, depth = 0): void {
    const { code, altStarts, ruleAlts } = this.program;
    if (depth > MAX_DEPTH) throw new EngineLimitError("the grammar nests rules too deep without reading a character (left recursion?)");
    for (;;) {
      if (++this.expansions > POOL_LIMITS.expansionsPerStep) throw new EngineLimitError("the grammar needs too much work for one step (left recursion or a runaway ambiguity)");
      const kind = code[pos]!;
      if (kind === EL.end) {
        if (next === -1) {
          this.reachedEnd = true;
          return;
        }
        pos = this.frames.pos[next]!;
        next = this.frames.below[next]!;
        continue;
      }
      if (kind === EL.ref) {
        // A reference last in its alternative pushes nothing (as llama.cpp): `x*` keeps a flat stack.
        const cont = code[pos + 2] === EL.end ? next : this.frame(pos + 2, next);
        const key = (cont + 1) * RULE_SPAN + code[pos + 1]!;
        if (!this.expanded.add(key)) return;
        // Indexed, not `for…of`: a recursive call is not inlined, so its iterator was allocated every time.
        const rule = code[pos + 1]!;
        for (let k = ruleAlts[rule]!, end = ruleAlts[rule + 1]!; k < end; k++) this.expand(altStarts[k]!, cont, depth + 1);
        return;
      }
      this.reached.add(this.frame(pos, next));
      if (this.reached.size > POOL_LIMITS.stacksPerState) throw new EngineLimitError(`a grammar state holds over ${POOL_LIMITS.stacksPerState} parses (an ambiguous grammar)`);
      return;
    }
  }

  /** The state of the step's reached tops (interned: a state reached before is found, not made again). */
  private stateOf(): StateId {
    const { items, size } = this.reached;
    const accepts = this.reachedEnd;
    if (size === 0 && !accepts) return DEAD;
    return this.internTops(items, size, accepts);
  }

  /** The state of these tops (`size` of `items`, in any order) and accepting flag, made on first use. */
  private internTops(items: Int32Array, size: number, accepts: boolean): StateId {
    if (size > this.sortBuffer.length) this.sortBuffer = new Int32Array(Math.max(size, this.sortBuffer.length * 2));
    const sorted = this.sortBuffer;
    sortInto(items, size, sorted);
    // Interned by a hash of the tops, each candidate compared (a key string of thousands of tops cost more).
    let hash = accepts ? 0x9e3779b9 : 0x811c9dc5;
    for (let i = 0; i < size; i++) hash = Math.imul(hash ^ sorted[i]!, 0x01000193);
    const bucket = this.stateIds.get(hash);
    let id: StateId | undefined;
    if (typeof bucket === "number") id = this.sameState(bucket, sorted, size, accepts) ? bucket : undefined;
    else if (bucket) for (let k = 0; k < bucket.length && id === undefined; k++) if (this.sameState(bucket[k]!, sorted, size, accepts)) id = bucket[k]!;
    if (id === undefined) {
      id = this.stateTops.length;
      // The tops, and the per-state slots and map entry.
      this.held += 200 + size * 4;
      this.stateTops.push(sorted.slice(0, size));
      this.stateAccepts.push(accepts);
      // Per-state tables stay dense (one slot per state), so V8 keeps them as plain arrays, not dictionaries.
      this.cutsAt.push(-1);
      this.tokenSteps.push(undefined);
      this.plans.forced.push(undefined);
      this.plans.closing.push(undefined);
      this.canonicalOf.push(-1);
      if (bucket === undefined) this.stateIds.set(hash, id);
      else if (typeof bucket === "number") this.stateIds.set(hash, [bucket, id]);
      else bucket.push(id);
    }
    return id;
  }

  private sameState(id: StateId, tops: Int32Array, size: number, accepts: boolean): boolean {
    const known = this.stateTops[id]!;
    if (this.stateAccepts[id] !== accepts || known.length !== size) return false;
    for (let i = 0; i < size; i++) if (known[i] !== tops[i]) return false;
    return true;
  }
}

/** The first `size` of `items`, sorted, into `out`: by insertion where few (most states), else by a typed sort. */
function sortInto(items: Int32Array, size: number, out: Int32Array): void {
  if (size > 48) {
    out.set(items.subarray(0, size));
    out.subarray(0, size).sort();
    return;
  }
  for (let i = 0; i < size; i++) {
    const x = items[i]!;
    let j = i - 1;
    for (; j >= 0 && out[j]! > x; j--) out[j + 1] = out[j]!;
    out[j + 1] = x;
  }
}

/** What a compiled program weighs: its code, its rule table, its rule names' array, and its classes. */
export function programBytes(p: Program): number {
  let bytes = p.code.byteLength + p.altStarts.byteLength + p.ruleAlts.byteLength + 8 * p.ruleNames.length + 192;
  for (const c of p.classes) bytes += c.ranges.byteLength + 240;
  return bytes;
}
