// Owns: reading GBNF text (llama.cpp's dialect, as qtc's compiler writes it) into a flat program the qtc
// constraint engine steps through: rules as alternatives of elements (a character class, a special token, a rule
// reference, the end of an alternative), groups and repetitions turned into rules of their own, as llama.cpp's
// own parser does. Bounded: a grammar over PROGRAM_LIMITS fails with a message instead of eating memory. The
// text is read by gbnf-reader.ts, the one GBNF reader; this file builds the program from what it reads.

import { GbnfError, type GbnfSink, readGbnf } from "./gbnf-reader.js";

/** Element kinds in `Program.code` (each element is two ints: kind, argument). */
export const EL = { end: 0, cls: 1, token: 2, ref: 3 } as const;

/** Limits of one compiled program (hostile grammars fail clearly, never take seconds or gigabytes). */
export const PROGRAM_LIMITS = Object.freeze({ maxElements: 4_000_000, maxRules: 400_000, maxRepeat: 10_000 });

export interface Program {
  /** Flat element pairs [kind, arg]: an alternative is a run of elements ending with EL.end. */
  readonly code: Int32Array;
  /**
   * Start offsets (in `code`, element index × 2) of every alternative, rule after rule: rule r's are
   * `altStarts[ruleAlts[r] .. ruleAlts[r + 1])`. Flat, not a view per rule: MaskBench's grammars have up to 40,000
   * rules, and 600,000 small views (50 MB over 39 grammars) were what the first collections after a compile copied.
   */
  readonly altStarts: Int32Array;
  /** Per rule, where its alternatives begin in `altStarts`; one more entry than there are rules. */
  readonly ruleAlts: Int32Array;
  /** Character classes: sorted inclusive code point ranges [lo, hi, lo, hi, …]; `negated` flips the match. */
  readonly classes: readonly { ranges: Int32Array; negated: boolean }[];
  readonly root: number;
  /** Special token ids the grammar names (`<[id]>`). */
  readonly tokens: readonly number[];
  /** Each rule's name in the GBNF text; "" for the rules made for groups and repetitions. */
  readonly ruleNames: readonly string[];
}

export { GbnfError };

/** How many rules a program has. */
export const ruleCount = (p: Program): number => p.ruleAlts.length - 1;

/** A rule's alternatives' start offsets (a view: for code off the hot path). */
export const alternativesOf = (p: Program, rule: number): Int32Array => p.altStarts.subarray(p.ruleAlts[rule]!, p.ruleAlts[rule + 1]!);

/** Where a rule's first alternative starts in `code`. */
export const firstAlternative = (p: Program, rule: number): number => p.altStarts[p.ruleAlts[rule]!]!;

/** An element before flattening, packed: argument × 4 + kind (EL). */
type Item = number;
type Seq = Item[];
const item = (kind: number, arg: number): Item => arg * 4 + kind;

/** Parse and flatten `gbnf`. Throws GbnfError on a syntax error, an undefined rule or a limit. */
export function compileGbnf(gbnf: string): Program {
  const sink = new ProgramSink();
  readGbnf(gbnf, sink, { maxRepeat: PROGRAM_LIMITS.maxRepeat });
  return sink.program();
}

/** Builds the flat program from what the reader reads. */
class ProgramSink implements GbnfSink<Item> {
  private readonly names = new Map<string, number>();
  private readonly defined: (Seq[] | undefined)[] = [];
  private readonly classes: { ranges: Int32Array; negated: boolean }[] = [];
  private readonly classIds = new Map<string, number>();
  private readonly tokenIds = new Set<number>();
  private readonly singles = new Map<number, number>();
  /** Rules already made for a group's body, a star of some items, and "up to k copies" chains of some items. */
  private readonly groups = new Map<string, number>();
  private readonly stars = new Map<string, number>();
  private readonly optionals = new Map<string, number[]>();

  program(): Program {
    const root = this.names.get("root");
    if (root === undefined) throw new GbnfError("the grammar has no root rule");
    for (const [name, id] of this.names) if (!this.defined[id]) throw new GbnfError(`rule ${name} is used but not defined`);
    return this.flatten(root);
  }

  rule(name: string, alts: Seq[]): void {
    this.defined[this.ruleId(name)] = alts;
  }

  literal(seq: Seq, cps: readonly number[], n: number): void {
    for (let k = 0; k < n; k++) seq.push(item(EL.cls, this.single(cps[k]!)));
  }

  charClass(ranges: number[], negated: boolean): Item {
    return item(EL.cls, this.classOf(ranges, negated));
  }

  token(id: number): Item {
    this.tokenIds.add(id);
    return item(EL.token, id);
  }

  ref(name: string): Item {
    return item(EL.ref, this.ruleId(name));
  }

  /** `min` copies and up to `max - min` optional ones. */
  repeat(items: Seq, min: number, max: number): Seq {
    const out: Seq = [];
    for (let k = 0; k < min; k++) out.push(...items);
    if (max === Infinity) out.push(item(EL.ref, this.star(items)));
    else if (max > min) out.push(item(EL.ref, this.upTo(items, max - min)));
    return out;
  }

  private flatten(root: number): Program {
    let size = 0;
    for (const rule of this.defined) for (const alt of rule!) size += (alt.length + 1) * 2;
    if (size / 2 > PROGRAM_LIMITS.maxElements) throw new GbnfError(`the grammar has over ${PROGRAM_LIMITS.maxElements} elements`);
    const code = new Int32Array(size);
    let count = 0;
    for (const rule of this.defined) count += rule!.length;
    const altStarts = new Int32Array(count);
    const ruleAlts = new Int32Array(this.defined.length + 1);
    let next = 0;
    let at = 0;
    this.defined.forEach((rule, r) => {
      ruleAlts[r] = next;
      for (const alt of rule!) {
        altStarts[next++] = at;
        for (const it of alt) {
          code[at++] = it & 3;
          code[at++] = it >>> 2;
        }
        code[at++] = EL.end;
        code[at++] = 0;
      }
    });
    ruleAlts[this.defined.length] = next;
    const ruleNames = Array.from(this.defined, () => "");
    for (const [name, id] of this.names) ruleNames[id] = name;
    return { code, altStarts, ruleAlts, classes: this.classes, root, tokens: [...this.tokenIds], ruleNames };
  }

  private ruleId(name: string): number {
    let id = this.names.get(name);
    if (id === undefined) {
      id = this.newRule();
      this.names.set(name, id);
    }
    return id;
  }

  private newRule(body?: Seq[]): number {
    if (this.defined.length >= PROGRAM_LIMITS.maxRules) throw new GbnfError(`the grammar has over ${PROGRAM_LIMITS.maxRules} rules`);
    this.defined.push(body);
    return this.defined.length - 1;
  }

  /** The class of one code point (literals are made of these). */
  private single(cp: number): number {
    let id = this.singles.get(cp);
    if (id === undefined) {
      id = this.classOf([cp, cp], false);
      this.singles.set(cp, id);
    }
    return id;
  }

  /**
   * The rule for a group's body, one per distinct body: schema grammars repeat the same group (a string's
   * character, a separator) thousands of times, and one rule each made MaskBench's largest grammars outgrow
   * PROGRAM_LIMITS.maxRules.
   */
  group(body: Seq[]): Item {
    const key = body.map((alt) => alt.join(",")).join("|");
    let id = this.groups.get(key);
    if (id === undefined) this.groups.set(key, (id = this.newRule(body)));
    return item(EL.ref, id);
  }

  /** star ::= items star | "" (one per distinct items). */
  private star(items: Seq): number {
    const key = items.join(",");
    let id = this.stars.get(key);
    if (id === undefined) {
      id = this.newRule();
      this.defined[id] = [[...items, item(EL.ref, id)], []];
      this.stars.set(key, id);
    }
    return id;
  }

  /**
   * Up to `n` copies of items: opt_k ::= items opt_{k-1} | "", one chain per distinct items, shared by every
   * bound (a repetition adds rules only past the longest chain made so far).
   */
  private upTo(items: Seq, n: number): number {
    const key = items.join(",");
    let chain = this.optionals.get(key);
    if (!chain) this.optionals.set(key, (chain = []));
    while (chain.length < n) chain.push(this.newRule([chain.length === 0 ? items : [...items, item(EL.ref, chain[chain.length - 1]!)], []]));
    return chain[n - 1]!;
  }

  /** The id of a class, merged ranges, shared between equal classes. */
  private classOf(raw: number[], negated: boolean): number {
    const pairs: [number, number][] = [];
    for (let k = 0; k < raw.length; k += 2) pairs.push([raw[k]!, raw[k + 1]!]);
    pairs.sort((a, b) => a[0] - b[0]);
    const merged: number[] = [];
    for (const [lo, hi] of pairs) {
      const n = merged.length;
      if (n > 0 && lo <= merged[n - 1]! + 1) merged[n - 1] = Math.max(merged[n - 1]!, hi);
      else merged.push(lo, hi);
    }
    const key = (negated ? "^" : "") + merged.join(",");
    let id = this.classIds.get(key);
    if (id === undefined) {
      id = this.classes.length;
      this.classes.push({ ranges: Int32Array.from(merged), negated });
      this.classIds.set(key, id);
    }
    return id;
  }
}

/** Whether class `cls` of `program` matches code point `cp`. */
export function classMatches(program: Program, cls: number, cp: number): boolean {
  const { ranges, negated } = program.classes[cls]!;
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[mid * 2]!) hi = mid - 1;
    else if (cp > ranges[mid * 2 + 1]!) lo = mid + 1;
    else return !negated;
  }
  return negated;
}

/** Whether class `cls` matches some code point in [lo, hi]. */
export function classMeets(program: Program, cls: number, lo: number, hi: number): boolean {
  const { ranges, negated } = program.classes[cls]!;
  if (negated) {
    // Not met only when [lo, hi] lies inside one excluded range.
    for (let k = 0; k < ranges.length; k += 2) if (ranges[k]! <= lo && hi <= ranges[k + 1]!) return false;
    return true;
  }
  for (let k = 0; k < ranges.length; k += 2) if (ranges[k]! <= hi && lo <= ranges[k + 1]!) return true;
  return false;
}
