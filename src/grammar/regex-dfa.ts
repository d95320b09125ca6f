// Owns: string languages as deterministic automata: built from regex-overlap's NFAs, intersected, complemented,
// minimized, and read back as one expression by state elimination. It holds what no rewrite of a pattern's tree
// can: two patterns in one allOf that neither holds the other of, `not` of any pattern, and minLength beside a
// pattern. An expression read off a DFA spells every string one way (a string's path is unique), so the grammar
// it becomes stays unambiguous, and each loop in it is a prefix-free language (regex-ambiguity.ts accepts those).

import type { CodeRange } from "./gbnf.js";
import { complement, inRanges, normalizeRanges, parsePattern, type ParsedPattern, type Re } from "./regex.js";
import { EPS, seq, source } from "./regex-derive.js";
import { closure, languageNfa, type Language, type Nfa } from "./regex-overlap.js";

/** Most states one automaton may reach before minimizing (a larger one is given up: the caller keeps its refusal). */
const MAX_STATES = 1_000;
/** Most states of a minimized DFA read back as an expression (each elimination step looks at every state left). */
const MAX_READ_STATES = 400;
/** Most nodes of the expression read back (state elimination can grow it quickly; the grammar pays for each node). */
const MAX_NODES = 3_000;
/** Most NFA states a language may take on its way to a DFA (bounded repetitions unroll: `.{2,64}` is 64 copies). */
const MAX_NFA_STATES = 5_000;
/**
 * Most work one subset construction does (NFA edges looked at, per interval of each DFA state): a pattern a client
 * sends cannot make the compile run long (20,000 NFA states in sets of thousands would).
 */
const MAX_WORK = 1_000_000;
const EVERY: CodeRange[] = [[0, 0x10ffff]];

interface Move {
  ranges: CodeRange[];
  to: number;
}

/** State 0 starts. A state's moves take disjoint ranges; a code point no move takes ends the match (rejected). */
interface Dfa {
  accept: boolean[];
  moves: Move[][];
}

class TooLarge extends Error {}

/**
 * Work left to every automaton of the compile running now (`withAutomatonBudget`), in the units MAX_WORK counts:
 * one automaton is bounded by this module's caps, but a schema holds up to 64 patterns, and a client could send
 * each near them (about 0.1 s apiece). Undefined outside a compile: each automaton has only its own caps.
 */
let compileWork: CompileWork | undefined;

interface CompileWork {
  left: number;
  /**
   * Each result of the compile by what it was built from: a compile may lower a schema more than once (under
   * `validate`, again without what it relaxes), and a second pass must not pay, or find the budget spent, again.
   */
  built: Map<string, ParsedPattern | null | undefined>;
}

/**
 * Run one compile with `work` units for all its automata together; past them an automaton is given up. `ranOut`:
 * some automaton was given up for that (a refusal the schema's other patterns caused, which its error should say).
 */
export function withAutomatonBudget<T>(work: number, run: () => T): { value: T; ranOut: boolean } {
  const outer = compileWork;
  const mine: CompileWork = { left: work, built: new Map() };
  compileWork = mine;
  try {
    const value = run();
    return { value, ranOut: mine.left < 0 };
  } finally {
    compileWork = outer;
  }
}

/** Count `units` of work against the running compile's automaton budget (TooLarge once it is spent). */
function spend(units: number): void {
  if (compileWork && (compileWork.left -= units) < 0) throw new TooLarge();
}

/** The code points where any of these moves starts or stops applying: one interval between each two. */
function intervals(moves: readonly { ranges: readonly CodeRange[] }[]): CodeRange[] {
  const cuts = new Set<number>();
  for (const m of moves) for (const [lo, hi] of m.ranges) cuts.add(lo).add(hi + 1);
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: CodeRange[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) out.push([sorted[i]!, sorted[i + 1]! - 1]);
  return out;
}

/** Builds a DFA whose states stand for keys (sets of NFA states, pairs of DFA states), each key once. */
class DfaBuilder<K> {
  readonly dfa: Dfa = { accept: [], moves: [] };
  readonly keys: K[] = [];
  private readonly ids = new Map<string, number>();

  constructor(private readonly name: (key: K) => string) {}

  id(key: K, accepting: boolean): number {
    const name = this.name(key);
    let id = this.ids.get(name);
    if (id === undefined) {
      if (this.keys.length >= MAX_STATES) throw new TooLarge();
      id = this.keys.length;
      this.ids.set(name, id);
      this.keys.push(key);
      this.dfa.accept.push(accepting);
      this.dfa.moves.push([]);
    }
    return id;
  }

  /** Record that `from` goes to `to` on `range` (ranges to one target gathered into one move). */
  move(from: number, range: CodeRange, to: number): void {
    const moves = this.dfa.moves[from]!;
    const same = moves.find((m) => m.to === to);
    if (same) same.ranges.push(range);
    else moves.push({ ranges: [range], to });
  }

  done(): Dfa {
    for (const moves of this.dfa.moves) for (const m of moves) m.ranges = normalizeRanges(m.ranges);
    return this.dfa;
  }
}

/** The subset construction: one DFA state per set of NFA states reached together. */
function determinize(nfa: Nfa): Dfa {
  const b = new DfaBuilder<number[]>((set) => set.join(","));
  b.id(closure(nfa, [0]), closure(nfa, [0]).includes(nfa.accept));
  let work = 0;
  for (let i = 0; i < b.keys.length; i++) {
    const edges = b.keys[i]!.flatMap((s) => nfa.edges[s]!);
    const ranges = intervals(edges);
    const units = b.keys[i]!.length + edges.length * ranges.length;
    spend(units);
    work += units;
    if (work > MAX_WORK) throw new TooLarge();
    for (const range of ranges) {
      const targets = edges.filter((e) => inRanges(e.ranges, range[0])).map((e) => e.to);
      if (targets.length === 0) continue;
      const set = closure(nfa, targets);
      spend(set.length);
      b.move(i, range, b.id(set, set.includes(nfa.accept)));
    }
  }
  return b.done();
}

/** The state `moves` go to on code point `cp` (undefined: none). */
const target = (moves: readonly Move[], cp: number) => moves.find((m) => inRanges(m.ranges, cp))?.to;

/** The strings both automata accept: their product, each pair of states once. */
function intersection(x: Dfa, y: Dfa): Dfa {
  const b = new DfaBuilder<[number, number]>(([p, q]) => `${p},${q}`);
  b.id([0, 0], x.accept[0]! && y.accept[0]!);
  for (let i = 0; i < b.keys.length; i++) {
    const [p, q] = b.keys[i]!;
    const ranges = intervals([...x.moves[p]!, ...y.moves[q]!]);
    spend(ranges.length * (x.moves[p]!.length + y.moves[q]!.length));
    for (const range of ranges) {
      const [np, nq] = [target(x.moves[p]!, range[0]), target(y.moves[q]!, range[0])];
      if (np === undefined || nq === undefined) continue;
      b.move(i, range, b.id([np, nq], x.accept[np]! && y.accept[nq]!));
    }
  }
  return b.done();
}

/** Every string the automaton rejects: missing moves go to an accepting sink, and acceptance flips. */
function complementOf(d: Dfa): Dfa {
  const sink = d.accept.length;
  const moves = d.moves.map((ms) => {
    const missing = complement(ms.flatMap((m) => m.ranges));
    return [...ms.map((m) => ({ ...m })), ...(missing.length > 0 ? [{ ranges: missing, to: sink }] : [])];
  });
  return { accept: [...d.accept.map((a) => !a), true], moves: [...moves, [{ ranges: EVERY, to: sink }]] };
}

/** The states from which some accepting state is reachable; the others are dropped (with the moves into them). */
function trimmed(d: Dfa): Dfa | undefined {
  const live = d.accept.map((a) => a);
  for (let changed = true; changed; ) {
    changed = false;
    d.moves.forEach((ms, s) => {
      if (!live[s] && ms.some((m) => live[m.to])) changed = live[s] = true;
    });
  }
  if (!live[0]) return undefined;
  const renumber = new Map<number, number>();
  d.accept.forEach((_, s) => live[s] && renumber.set(s, renumber.size));
  const keep = [...renumber.keys()];
  return {
    accept: keep.map((s) => d.accept[s]!),
    moves: keep.map((s) => d.moves[s]!.filter((m) => live[m.to]).map((m) => ({ ranges: m.ranges, to: renumber.get(m.to)! }))),
  };
}

/** A state's moves as [lo, hi, target] triples in code-point order (its moves take disjoint ranges). */
function orderedMoves(moves: readonly Move[]): [number, number, number][] {
  return moves.flatMap((m) => m.ranges.map(([lo, hi]) => [lo, hi, m.to] as [number, number, number])).sort((a, b) => a[0] - b[0]);
}

/** What a state does under a block numbering: its ranges, adjacent ones to one block merged, each with the block. */
function signature(moves: readonly [number, number, number][], block: readonly number[]): string {
  let out = "";
  let [lo, hi, to] = [-2, -2, -1];
  for (const [l, h, t] of moves) {
    if (block[t] === to && l === hi + 1) hi = h;
    else {
      if (to >= 0) out += `${lo}-${hi}:${to};`;
      [lo, hi, to] = [l, h, block[t]!];
    }
  }
  return to >= 0 ? `${out}${lo}-${hi}:${to}` : out;
}

/**
 * The smallest equivalent DFA (Moore's refinement: states apart while some code point leads them to blocks apart);
 * undefined when it has more than MAX_READ_STATES states (each round that refines adds a block, so the rounds stop
 * there too).
 */
function minimized(d: Dfa): Dfa | undefined {
  const moves = d.moves.map(orderedMoves);
  let block: number[] = d.accept.map((a) => (a ? 1 : 0));
  let count = new Set(block).size;
  const movesInAll = moves.reduce((n, ms) => n + ms.length, 0);
  for (;;) {
    spend(moves.length + movesInAll);
    const names = new Map<string, number>();
    const next = moves.map((ms, s) => {
      const name = `${block[s]}|${signature(ms, block)}`;
      if (!names.has(name)) names.set(name, names.size);
      return names.get(name)!;
    });
    block = next;
    if (names.size === count) break;
    count = names.size;
    if (count > MAX_READ_STATES) return undefined;
  }
  // Block ids renumbered so that the start's block is 0.
  const order = new Map<number, number>([[block[0]!, 0]]);
  for (const b of block) if (!order.has(b)) order.set(b, order.size);
  const out: Dfa = { accept: [], moves: [] };
  block.forEach((b, s) => {
    const id = order.get(b)!;
    if (out.moves[id]) return;
    out.accept[id] = d.accept[s]!;
    const byTarget = new Map<number, CodeRange[]>();
    for (const m of d.moves[s]!) byTarget.set(order.get(block[m.to]!)!, [...(byTarget.get(order.get(block[m.to]!)!) ?? []), ...m.ranges]);
    out.moves[id] = [...byTarget].map(([to, ranges]) => ({ ranges: normalizeRanges(ranges), to }));
  });
  return out;
}

function size(re: Re): number {
  if (re.t === "set") return 1;
  if (re.t === "rep") return 1 + size(re.item);
  return re.items.reduce((n, i) => n + size(i), 1);
}

/** Two ways between one pair of states as one expression: classes join into one class, `""` | X into X?. */
function either(a: Re, b: Re): Re {
  if (a.t === "set" && b.t === "set") return { t: "set", ranges: normalizeRanges([...a.ranges, ...b.ranges]) };
  const items = [a, b].flatMap((i) => (i.t === "alt" ? i.items : [i]));
  const sets = items.filter((i): i is Re & { t: "set" } => i.t === "set");
  const rest = items.filter((i) => i.t !== "set");
  const merged = sets.length > 1 ? [...rest, { t: "set" as const, ranges: normalizeRanges(sets.flatMap((s) => s.ranges)) }] : items;
  const empty = merged.filter((i) => i.t === "seq" && i.items.length === 0);
  const others = merged.filter((i) => !(i.t === "seq" && i.items.length === 0));
  const body: Re = others.length === 1 ? others[0]! : { t: "alt", items: others };
  return empty.length > 0 ? { t: "rep", item: body, min: 0, max: 1 } : body;
}

/**
 * The DFA's language as one expression (state elimination, the state with the fewest ways through it first), or
 * undefined past MAX_READ_STATES states or MAX_NODES nodes. Each loop it writes is "from a state back to it, not
 * passing it": no such string is a prefix of another.
 */
function expression(d: Dfa): Re | undefined {
  const n = d.accept.length;
  if (n > MAX_READ_STATES) return undefined;
  const [start, end] = [n, n + 1];
  const out = new Map<number, Map<number, Re>>();
  const into = new Map<number, Set<number>>();
  const row = <K, V>(m: Map<number, Map<K, V> | Set<K>>, k: number, make: () => Map<K, V> | Set<K>) => m.get(k) ?? m.set(k, make()).get(k)!;
  const put = (i: number, j: number, re: Re) => {
    const ways = row(out, i, () => new Map()) as Map<number, Re>;
    const known = ways.get(j);
    ways.set(j, known ? either(known, re) : re);
    (row(into, j, () => new Set()) as Set<number>).add(i);
  };
  put(start, 0, EPS);
  d.moves.forEach((ms, s) => ms.forEach((m) => put(s, m.to, { t: "set", ranges: m.ranges })));
  d.accept.forEach((a, s) => a && put(s, end, EPS));
  const others = (set: Iterable<number>, k: number) => [...set].filter((x) => x !== k);
  const cost = (k: number) => others(into.get(k) ?? [], k).length * others(out.get(k)?.keys() ?? [], k).length;
  const left = new Set(d.accept.keys());
  while (left.size > 0) {
    spend(left.size);
    let k = -1;
    for (const s of left) if (k < 0 || cost(s) < cost(k)) k = s;
    const loop = out.get(k)?.get(k);
    const star: Re[] = loop ? [{ t: "rep", item: loop, min: 0, max: undefined }] : [];
    const preds = others(into.get(k) ?? [], k);
    const succs = others(out.get(k)?.keys() ?? [], k);
    spend(preds.length * succs.length);
    for (const i of preds) {
      for (const j of succs) {
        put(i, j, seq([out.get(i)!.get(k)!, ...star, out.get(k)!.get(j)!]));
        if (size(out.get(i)!.get(j)!) > MAX_NODES) return undefined;
      }
      out.get(i)!.delete(k);
    }
    for (const j of succs) into.get(j)!.delete(k);
    out.delete(k);
    into.delete(k);
    left.delete(k);
  }
  return out.get(start)?.get(end);
}

/** A language's automaton (determinized); undefined when its NFA or DFA is larger than this module builds. */
function automaton(language: Language): Dfa | undefined {
  const nfa = languageNfa(language, MAX_NFA_STATES);
  return nfa && determinize(nfa);
}

/**
 * The DFA a step builds, trimmed and minimized, as an anchored pattern: `null` when no string is left, undefined
 * when an automaton or the expression grows past this module's bounds.
 */
function asPattern(key: string, build: () => Dfa | undefined): ParsedPattern | null | undefined {
  const known = compileWork?.built;
  if (known?.has(key)) return known.get(key);
  const read = readBack(build);
  known?.set(key, read);
  return read;
}

function readBack(build: () => Dfa | undefined): ParsedPattern | null | undefined {
  try {
    const built = build();
    if (!built) return undefined;
    const live = trimmed(built);
    if (!live) return null;
    const small = minimized(live);
    const re = small && expression(small);
    return re && { branches: [{ re, start: true, end: true }] };
  } catch (e) {
    if (e instanceof TooLarge) return undefined;
    throw e;
  }
}

/** The strings both languages hold (null: none; undefined: past the bounds). */
export function bothLanguages(a: Language, b: Language): ParsedPattern | null | undefined {
  return asPattern(`both ${languageKey(a)} ${languageKey(b)}`, () => {
    const [x, y] = [automaton(a), automaton(b)];
    return x && y && intersection(x, y);
  });
}

/**
 * A pattern's strings of at least `minLength` characters, read off its own minimized DFA (one way to spell each):
 * null when there are none; undefined when past the bounds.
 */
export function ownLanguage(p: ParsedPattern, minLength = 0): ParsedPattern | null | undefined {
  return bothLanguages({ t: "pattern", pattern: p }, { t: "repeat", ranges: EVERY, min: minLength });
}

/** The strings a language does not hold (null: none; undefined: past the bounds). */
export function outsideLanguage(a: Language): ParsedPattern | null | undefined {
  return asPattern(`outside ${languageKey(a)}`, () => {
    const x = automaton(a);
    return x && complementOf(x);
  });
}

/** What a language is, as text: equal keys, equal languages (the memo of one compile's results). */
function languageKey(l: Language): string {
  return l.t === "pattern" ? `/${patternSource(l.pattern)}/` : `${JSON.stringify(l.ranges)}{${l.min},${l.max ?? ""}}`;
}

/** A parsed pattern as source the pattern parser and the validator both read (anchored at both ends). */
export function patternSource(p: ParsedPattern): string {
  return p.branches.map(({ re, start, end }) => `${start ? "^" : ""}(?:${source(re)})${end ? "$" : ""}`).join("|");
}

/**
 * Two patterns (as JSON Schema searches them) as one that holds exactly the strings both match: null when no
 * string matches both; undefined when not built.
 */
export function patternOfBoth(a: string, b: string): string | null | undefined {
  const [pa, pb] = [parsePattern(a), parsePattern(b)];
  if (!pa.ok || !pb.ok) return undefined;
  const both = bothLanguages({ t: "pattern", pattern: pa.value }, { t: "pattern", pattern: pb.value });
  return both && patternSource(both);
}

/** A pattern that matches exactly the strings `pattern` does not: null when it matches every string; undefined when not built. */
export function patternOutside(pattern: string): string | null | undefined {
  const p = parsePattern(pattern);
  if (!p.ok) return undefined;
  const outside = outsideLanguage({ t: "pattern", pattern: p.value });
  return outside && patternSource(outside);
}

/** A name as a pattern that matches exactly it. */
export function exactly(name: string): string {
  return `^${name.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")}$`;
}

/** A trimmed, minimized automaton a grammar writer reads: state 0 starts; a state's moves take disjoint ranges. */
export type StringAutomaton = Readonly<Dfa>;

/**
 * The strings `within` matches that no pattern of `avoided` matches (as JSON Schema searches), as an automaton:
 * null when there are none; undefined when past the bounds (this module's caps and the compile's budget).
 */
export function automatonAvoiding(within: string, avoided: readonly string[]): StringAutomaton | null | undefined {
  const own = parsePattern(within);
  // One pattern's top-level alternatives are a union: joined, the avoided patterns cost one complement.
  const union = parsePattern(avoided.join("|"));
  if (!own.ok || !union.ok || avoided.length === 0) return undefined;
  try {
    const [x, y] = [automaton({ t: "pattern", pattern: own.value }), automaton({ t: "pattern", pattern: union.value })];
    if (!x || !y) return undefined;
    const live = trimmed(intersection(x, complementOf(y)));
    return live ? minimized(live) : null;
  } catch (e) {
    if (e instanceof TooLarge) return undefined;
    throw e;
  }
}
