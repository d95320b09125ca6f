// Owns: reading GBNF text (llama.cpp's dialect, as qtc's compiler writes it) into a flat program the qtc
// constraint engine steps through: rules as alternatives of elements (a character class, a special token, a rule
// reference, the end of an alternative), groups and repetitions turned into rules of their own, as llama.cpp's
// own parser does. Bounded: a grammar over PROGRAM_LIMITS fails with a message instead of eating memory.

/** Element kinds in `Program.code` (each element is two ints: kind, argument). */
export const EL = { end: 0, cls: 1, token: 2, ref: 3 } as const;

/** Limits of one compiled program (hostile grammars fail clearly, never take seconds or gigabytes). */
export const PROGRAM_LIMITS = Object.freeze({ maxElements: 4_000_000, maxRules: 400_000, maxRepeat: 10_000 });

export interface Program {
  /** Flat element pairs [kind, arg]: an alternative is a run of elements ending with EL.end. */
  readonly code: Int32Array;
  /** Start offsets (in `code`, element index × 2) of each rule's alternatives. */
  readonly alts: readonly Int32Array[];
  /** Character classes: sorted inclusive code point ranges [lo, hi, lo, hi, …]; `negated` flips the match. */
  readonly classes: readonly { ranges: Int32Array; negated: boolean }[];
  readonly root: number;
  /** Special token ids the grammar names (`<[id]>`). */
  readonly tokens: readonly number[];
}

export class GbnfError extends Error {}

/** An element before flattening, packed: argument × 4 + kind (EL). */
type Item = number;
type Seq = Item[];
const item = (kind: number, arg: number): Item => arg * 4 + kind;

/** Parse and flatten `gbnf`. Throws GbnfError on a syntax error, an undefined rule or a limit. */
export function compileGbnf(gbnf: string): Program {
  return new Reader(gbnf).program();
}

class Reader {
  private i = 0;
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

  constructor(private readonly src: string) {}

  program(): Program {
    this.space(true);
    while (this.i < this.src.length) {
      const name = this.name();
      this.space(false);
      if (!this.src.startsWith("::=", this.i)) this.fail("expected ::=");
      this.i += 3;
      this.space(true);
      const id = this.ruleId(name);
      if (this.defined[id]) this.fail(`rule ${name} defined twice`);
      this.defined[id] = this.alternates(false);
      this.space(true);
    }
    const root = this.names.get("root");
    if (root === undefined) throw new GbnfError("the grammar has no root rule");
    for (const [name, id] of this.names) if (!this.defined[id]) throw new GbnfError(`rule ${name} is used but not defined`);
    return this.flatten(root);
  }

  private flatten(root: number): Program {
    let size = 0;
    for (const rule of this.defined) for (const alt of rule!) size += (alt.length + 1) * 2;
    if (size / 2 > PROGRAM_LIMITS.maxElements) throw new GbnfError(`the grammar has over ${PROGRAM_LIMITS.maxElements} elements`);
    const code = new Int32Array(size);
    const alts: Int32Array[] = [];
    // Every rule's alternative starts in one buffer, each rule a view of it: a buffer per rule made compiling
    // 33,000 rules spend most of its time allocating and collecting them.
    let count = 0;
    for (const rule of this.defined) count += rule!.length;
    const allStarts = new Int32Array(count);
    let next = 0;
    let at = 0;
    for (const rule of this.defined) {
      const starts = allStarts.subarray(next, (next += rule!.length));
      rule!.forEach((alt, k) => {
        starts[k] = at;
        for (const it of alt) {
          code[at++] = it & 3;
          code[at++] = it >>> 2;
        }
        code[at++] = EL.end;
        code[at++] = 0;
      });
      alts.push(starts);
    }
    return { code, alts, classes: this.classes, root, tokens: [...this.tokenIds] };
  }

  private fail(what: string): never {
    const line = this.src.slice(0, this.i).split("\n").length;
    throw new GbnfError(`GBNF line ${line}: ${what}`);
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
    if (this.defined.length >= PROGRAM_LIMITS.maxRules) this.fail(`over ${PROGRAM_LIMITS.maxRules} rules`);
    this.defined.push(body);
    return this.defined.length - 1;
  }

  /** Spaces and comments; newlines too when `newlines`. */
  private space(newlines: boolean): void {
    const s = this.src;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
      } else if (c === " " || c === "\t" || c === "\r" || (newlines && c === "\n")) this.i++;
      else break;
    }
  }

  private name(): string {
    const start = this.i;
    while (this.i < this.src.length && isNameChar(this.src.charCodeAt(this.i))) this.i++;
    if (this.i === start) this.fail("expected a rule name");
    return this.src.slice(start, this.i);
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
   * A rule's alternatives, to the end of its line (groups may span lines). Open groups are kept on an explicit
   * stack, so nesting costs array entries, not call-stack frames (8,000 parentheses overflowed the recursive reader).
   */
  private alternates(nested: boolean): Seq[] {
    const open: { alts: Seq[]; seq: Seq; lastStart: number }[] = [{ alts: [], seq: [], lastStart: 0 }];
    const s = this.src;
    for (;;) {
      const top = open[open.length - 1]!;
      const inGroup = nested || open.length > 1;
      this.space(inGroup);
      const c = s[this.i];
      if (c === "|") {
        top.alts.push(top.seq);
        top.seq = [];
        top.lastStart = 0;
        this.i++;
        this.space(true);
        continue;
      }
      if (c === "(") {
        this.i++;
        this.space(true);
        open.push({ alts: [], seq: [], lastStart: 0 });
        continue;
      }
      if (c === ")" && open.length > 1) {
        this.i++;
        open.pop();
        const parent = open[open.length - 1]!;
        parent.lastStart = parent.seq.length;
        parent.seq.push(item(EL.ref, this.group([...top.alts, top.seq])));
        continue;
      }
      if (c === undefined || c === ")" || c === "\n") {
        if (open.length > 1) this.fail("expected )");
        return [...top.alts, top.seq];
      }
      top.lastStart = this.element(top.seq, top.lastStart);
    }
  }

  /** Read one element (or a repetition of the last one) into `seq`; returns where the last element starts. */
  private element(seq: Seq, lastStart: number): number {
    const s = this.src;
    const c = s[this.i]!;
    if (c === '"') {
      lastStart = seq.length;
      this.i++;
      while (s[this.i] !== '"') {
        if (this.i >= s.length) this.fail("unterminated literal");
        const cp = this.char();
        seq.push(item(EL.cls, this.single(cp)));
      }
      this.i++;
    } else if (c === "[") {
      lastStart = seq.length;
      seq.push(item(EL.cls, this.charClass()));
    } else if (c === ".") {
      lastStart = seq.length;
      this.i++;
      seq.push(item(EL.cls, this.classOf([], true)));
    } else if (c === "<" && s[this.i + 1] === "[") {
      const m = /^<\[(\d+)\]>/.exec(s.slice(this.i, this.i + 24));
      if (!m) this.fail("bad token reference");
      this.i += m[0].length;
      lastStart = seq.length;
      const id = Number(m[1]);
      this.tokenIds.add(id);
      seq.push(item(EL.token, id));
    } else if (isNameChar(s.charCodeAt(this.i))) {
      lastStart = seq.length;
      seq.push(item(EL.ref, this.ruleId(this.name())));
    } else if (c === "*" || c === "+" || c === "?") {
      this.i++;
      this.repeat(seq, lastStart, c === "+" ? 1 : 0, c === "?" ? 1 : Infinity);
    } else if (c === "{") {
      const m = /^\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}/.exec(s.slice(this.i, this.i + 48));
      if (!m) this.fail("bad repetition");
      this.i += m[0].length;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (max < min || min > PROGRAM_LIMITS.maxRepeat || (max !== Infinity && max > PROGRAM_LIMITS.maxRepeat)) this.fail("repetition out of range");
      this.repeat(seq, lastStart, min, max);
    } else this.fail(`unexpected ${JSON.stringify(c)}`);
    return lastStart;
  }

  /** Replace seq[from..] (the last item) with `min` copies and up to `max - min` optional ones. */
  private repeat(seq: Seq, from: number, min: number, max: number): void {
    if (from >= seq.length) this.fail("repetition of nothing");
    const items = seq.splice(from);
    for (let k = 0; k < min; k++) seq.push(...items);
    if (max === Infinity) seq.push(item(EL.ref, this.star(items)));
    else if (max > min) seq.push(item(EL.ref, this.upTo(items, max - min)));
  }

  /**
   * The rule for a group's body, one per distinct body: schema grammars repeat the same group (a string's
   * character, a separator) thousands of times, and one rule each made MaskBench's largest grammars outgrow
   * PROGRAM_LIMITS.maxRules.
   */
  private group(body: Seq[]): number {
    const key = body.map((alt) => alt.join(",")).join("|");
    let id = this.groups.get(key);
    if (id === undefined) this.groups.set(key, (id = this.newRule(body)));
    return id;
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

  /** One character of a literal or class (escapes as llama.cpp reads them). */
  private char(): number {
    const s = this.src;
    if (s[this.i] !== "\\") {
      const cp = s.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    const e = s[this.i + 1];
    const simple: Record<string, number> = { n: 10, r: 13, t: 9, "\\": 92, '"': 34, "[": 91, "]": 93, "-": 45 };
    if (e !== undefined && e in simple) {
      this.i += 2;
      return simple[e]!;
    }
    const width = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    const hex = s.slice(this.i + 2, this.i + 2 + width);
    if (width === 0 || hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) this.fail("bad escape");
    this.i += 2 + width;
    return parseInt(hex, 16);
  }

  private charClass(): number {
    this.i++; // [
    const negated = this.src[this.i] === "^";
    if (negated) this.i++;
    const ranges: number[] = [];
    while (this.src[this.i] !== "]") {
      if (this.i >= this.src.length) this.fail("unterminated class");
      const lo = this.char();
      let hi = lo;
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]") {
        this.i++;
        hi = this.char();
      }
      ranges.push(lo, hi);
    }
    this.i++;
    return this.classOf(ranges, negated);
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

/** [a-zA-Z0-9_-] */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
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
