// Owns: the regular-expression subset a JSON Schema `pattern` may use, parsed into a small tree (character sets,
// sequences, alternatives, bounded or unbounded repetitions). Anything outside the subset is refused by name.
//
// Supported: literals, `.`, classes `[...]` / `[^...]` with ranges, `\d \w \s \D \W \S`, escapes (`\n \t \r \f
// \v \0 \xHH \uHHHH \u{H…}` and escaped punctuation), groups `( )`, `(?: )`, `(?<name> )`, alternation `|`,
// quantifiers `* + ? {n} {n,} {n,m}` (lazy `?` suffix allowed), `^` at the start and `$` at the end of a
// top-level alternative, or of an alternative of a group that starts or ends one (`(^a$)|(^b$)`, `^x(a|$)`: the
// group's alternatives become top-level ones). Refused: lookaround, backreferences, `\b \B`, `\p{…}`, `\cX`,
// anchors elsewhere.

import type { CodeRange } from "./gbnf.js";
import { ecmaPattern } from "../tools/linear-regexp.js";

export type Re =
  | { t: "set"; ranges: CodeRange[] }
  | { t: "seq"; items: Re[] }
  | { t: "alt"; items: Re[] }
  | { t: "rep"; item: Re; min: number; max: number | undefined };

/** A parsed pattern: one entry per top-level alternative, with whether it is anchored at each end. */
export interface ParsedPattern {
  branches: { re: Re; start: boolean; end: boolean }[];
}

export type RegexResult = { ok: true; value: ParsedPattern } | { ok: false; reason: string };

const MAX_CP = 0x10ffff;
const DIGIT: CodeRange[] = [[0x30, 0x39]];
const WORD: CodeRange[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: CodeRange[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: CodeRange[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

/** Whether every character of a set is whitespace (`\s`): a separator between words. */
export function onlySpace(ranges: readonly CodeRange[]): boolean {
  return ranges.length > 0 && intersect(ranges, complement(SPACE)).length === 0;
}

/** Sorted, merged ranges. */
export function normalizeRanges(ranges: readonly CodeRange[]): CodeRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Code points 0..U+10FFFF not in `ranges`. */
export function complement(ranges: readonly CodeRange[]): CodeRange[] {
  const out: CodeRange[] = [];
  let next = 0;
  for (const [lo, hi] of normalizeRanges(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

/** Intersection of two range lists. */
/** Whether code point `cp` lies in one of `ranges`. */
export function inRanges(ranges: readonly CodeRange[], cp: number): boolean {
  return ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
}

export function intersect(a: readonly CodeRange[], b: readonly CodeRange[]): CodeRange[] {
  const out: CodeRange[] = [];
  for (const [alo, ahi] of normalizeRanges(a)) {
    for (const [blo, bhi] of normalizeRanges(b)) {
      const lo = Math.max(alo, blo);
      const hi = Math.min(ahi, bhi);
      if (lo <= hi) out.push([lo, hi]);
    }
  }
  return normalizeRanges(out);
}

class Unsupported extends Error {}

/** Whether `re` matches the empty string. */
export function nullable(re: Re): boolean {
  switch (re.t) {
    case "set":
      return false;
    case "rep":
      return re.min === 0 || nullable(re.item);
    case "seq":
      return re.items.every(nullable);
    case "alt":
      return re.items.some(nullable);
  }
}

/** Whether every string `re` matches has at least one character. */
const consumes = (re: Re) => !nullable(re);

/** Parse a JSON Schema pattern (ECMAScript syntax, `u` flag) within the supported subset. */
export function parsePattern(source: string): RegexResult {
  try {
    // What schema authors write for literal punctuation (`\:`, a lone `}`) read as the validator reads it.
    const p = new Parser(ecmaPattern(source));
    const branches = p.parseTop();
    return { ok: true, value: { branches } };
  } catch (e) {
    if (e instanceof Unsupported) return { ok: false, reason: e.message };
    throw e;
  }
}

class Parser {
  private pos = 0;
  private readonly cps: number[];

  constructor(source: string) {
    this.cps = [...source].map((c) => c.codePointAt(0)!);
  }

  /** Alternatives of groups (sequences) that start with `^` or end with `$`: lifted to the top by parseTop. */
  private readonly anchored = new Map<Re, { start: boolean; end: boolean }>();

  parseTop(): ParsedPattern["branches"] {
    const branches: ParsedPattern["branches"] = [];
    for (;;) {
      let start = false;
      if (this.peek() === 0x5e /* ^ */) {
        start = true;
        this.pos++;
      }
      const items = this.parseSeq(true);
      let end = false;
      if (this.peek() === 0x24 /* $ */) {
        end = true;
        this.pos++;
      }
      branches.push(...this.lift({ items, start, end }));
      if (this.peek() === 0x7c /* | */) {
        this.pos++;
        continue;
      }
      if (this.pos < this.cps.length) throw new Unsupported(`unexpected "${this.char()}" at ${this.pos}`);
      return branches;
    }
  }

  /** Whether a group's tree (what parseAlt returned) has an anchored alternative. */
  private hasAnchor(re: Re): boolean {
    return this.anchored.has(re) || (re.t === "alt" && re.items.some((i) => this.anchored.has(i)));
  }

  /**
   * A top-level alternative whose first or last item is a group with anchored alternatives, as one top-level
   * alternative per alternative of that group (the same language). An anchor anywhere else is refused.
   */
  private lift(b: { items: Re[]; start: boolean; end: boolean }): ParsedPattern["branches"] {
    const spread = (group: Re) => (group.t === "alt" ? group.items : [group]);
    let out = [b];
    if (b.items.length > 0 && this.hasAnchor(b.items[0]!)) {
      out = spread(b.items[0]!).map((alt) => {
        const f = this.anchored.get(alt) ?? { start: false, end: false };
        if (f.end && b.items.length > 1) throw new Unsupported("`$` is supported only at the end of the pattern");
        return { items: [...(alt.t === "seq" ? alt.items : [alt]), ...b.items.slice(1)], start: b.start || f.start, end: b.end || f.end };
      });
    } else if (b.items.length > 1 && this.hasAnchor(b.items[b.items.length - 1]!)) {
      out = spread(b.items[b.items.length - 1]!).map((alt) => {
        const f = this.anchored.get(alt) ?? { start: false, end: false };
        if (f.start) throw new Unsupported("`^` is supported only at the start of the pattern");
        return { items: [...b.items.slice(0, -1), ...(alt.t === "seq" ? alt.items : [alt])], start: b.start, end: b.end || f.end };
      });
    }
    for (const o of out) for (const item of o.items) this.refuseAnchors(item);
    return out.map((o) => ({ re: { t: "seq", items: o.items }, start: o.start, end: o.end }));
  }

  /** Refuse an anchored alternative left inside a tree (one that lift could not bring to the top). */
  private refuseAnchors(re: Re): void {
    const f = this.anchored.get(re);
    if (f) throw new Unsupported(f.start ? "`^` is supported only at the start of the pattern" : "`$` is supported only at the end of the pattern");
    if (re.t === "seq" || re.t === "alt") for (const i of re.items) this.refuseAnchors(i);
    else if (re.t === "rep") this.refuseAnchors(re.item);
  }

  private parseAlt(): Re {
    const items: Re[] = [this.groupSeq()];
    while (this.peek() === 0x7c) {
      this.pos++;
      items.push(this.groupSeq());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  /** One alternative inside a group: `^` at its start and `$` at its end are noted (see lift). */
  private groupSeq(): Re {
    let start = false;
    if (this.peek() === 0x5e /* ^ */) {
      start = true;
      this.pos++;
    }
    const seq: Re = { t: "seq", items: this.parseSeq(false) };
    const c = this.cps[this.pos + 1];
    let end = false;
    if (this.peek() === 0x24 /* $ */ && (c === 0x7c || c === 0x29)) {
      end = true;
      this.pos++;
    }
    if (start || end) this.anchored.set(seq, { start, end });
    return seq;
  }

  private parseSeq(top: boolean): Re[] {
    const items: Re[] = [];
    /** Where a `$` stood inside the sequence: what follows it must read no character for it to hold. */
    let endAt: number | undefined;
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29 /* ) */) {
        if (endAt === undefined) return items;
        // A character read after `$` (the string's end): nothing matches here.
        if (items.slice(endAt).some(consumes)) return [...items, { t: "set", ranges: [] }];
        throw new Unsupported("`$` is supported only at the end of the pattern");
      }
      if (c === 0x24 /* $ */) {
        if (endAt === undefined && top && (this.pos === this.cps.length - 1 || this.cps[this.pos + 1] === 0x7c)) return items;
        // A group's alternative ends here (groupSeq takes the `$`).
        if (endAt === undefined && !top && (this.cps[this.pos + 1] === 0x7c || this.cps[this.pos + 1] === 0x29)) return items;
        this.pos++;
        endAt ??= items.length;
        continue;
      }
      if (c === 0x5e) {
        // After a character is read, `^` never holds (no flags: it means the string's start): nothing matches here.
        if (!items.some(consumes)) throw new Unsupported("`^` is supported only at the start of the pattern");
        this.pos++;
        items.push({ t: "set", ranges: [] });
        continue;
      }
      const atom = this.parseAtom();
      items.push(this.parseQuantifier(atom));
    }
  }

  private parseQuantifier(atom: Re): Re {
    const c = this.peek();
    let min: number;
    let max: number | undefined;
    if (c === 0x2a) [min, max] = [0, undefined];
    else if (c === 0x2b) [min, max] = [1, undefined];
    else if (c === 0x3f) [min, max] = [0, 1];
    else if (c === 0x7b /* { */) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 24)));
      if (!m) throw new Unsupported(`"{" at ${this.pos} is not a quantifier`);
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? undefined : Number(m[3]);
      if (max !== undefined && max < min) throw new Unsupported(`quantifier {${min},${max}} is out of order`);
      this.pos += m[0].length - 1;
    } else return atom;
    this.pos++;
    if (this.peek() === 0x3f) this.pos++; // lazy: same language
    const next = this.peek();
    if (next === 0x2a || next === 0x2b || next === 0x3f || next === 0x7b) throw new Unsupported("nested quantifier");
    return { t: "rep", item: atom, min, max };
  }

  private parseAtom(): Re {
    const c = this.next();
    switch (c) {
      case 0x28: {
        // (
        if (this.peek() === 0x3f) {
          const rest = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 3));
          if (rest.startsWith("?:")) this.pos += 2;
          else if (/^\?<[A-Za-z_$]/.test(rest)) {
            while (this.peek() !== undefined && this.peek() !== 0x3e) this.pos++;
            this.pos++;
          } else throw new Unsupported("lookaround groups are not supported");
        }
        const inner = this.parseAlt();
        if (this.next() !== 0x29) throw new Unsupported("unclosed group");
        return inner;
      }
      case 0x5b:
        return { t: "set", ranges: this.parseClass() };
      case 0x2e:
        return { t: "set", ranges: complement(LINE_TERMINATORS) };
      case 0x5c:
        return { t: "set", ranges: this.parseEscape(false) };
      case 0x2a:
      case 0x2b:
      case 0x3f:
      case 0x7b:
        throw new Unsupported(`quantifier "${String.fromCodePoint(c)}" has nothing to repeat`);
      case 0x29:
      case 0x5d:
      case 0x7d:
        throw new Unsupported(`unbalanced "${String.fromCodePoint(c)}"`);
      default:
        return { t: "set", ranges: [[c, c]] };
    }
  }

  private parseClass(): CodeRange[] {
    let negate = false;
    if (this.peek() === 0x5e) {
      negate = true;
      this.pos++;
    }
    const ranges: CodeRange[] = [];
    for (;;) {
      const c = this.next();
      if (c === 0x5d) break;
      const lo = c === 0x5c ? this.parseEscape(true) : [[c, c] as CodeRange];
      if (this.peek() === 0x2d && this.cps[this.pos + 1] !== undefined && this.cps[this.pos + 1] !== 0x5d) {
        this.pos++;
        const d = this.next();
        const hi = d === 0x5c ? this.parseEscape(true) : [[d, d] as CodeRange];
        if (lo.length !== 1 || hi.length !== 1 || lo[0]![0] !== lo[0]![1] || hi[0]![0] !== hi[0]![1]) {
          throw new Unsupported("a class range must join two single characters");
        }
        if (hi[0]![0] < lo[0]![0]) throw new Unsupported("class range out of order");
        ranges.push([lo[0]![0], hi[0]![0]]);
      } else ranges.push(...lo);
    }
    return negate ? complement(ranges) : normalizeRanges(ranges);
  }

  private parseEscape(inClass: boolean): CodeRange[] {
    const c = this.next();
    const ch = String.fromCodePoint(c);
    switch (ch) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      case "n":
        return [[0x0a, 0x0a]];
      case "r":
        return [[0x0d, 0x0d]];
      case "t":
        return [[0x09, 0x09]];
      case "f":
        return [[0x0c, 0x0c]];
      case "v":
        return [[0x0b, 0x0b]];
      case "0":
        return [[0, 0]];
      case "b":
        if (inClass) return [[0x08, 0x08]];
        throw new Unsupported("word boundaries (\\b) are not supported");
      case "x": {
        const hex = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 2));
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new Unsupported("bad \\x escape");
        this.pos += 2;
        const v = parseInt(hex, 16);
        return [[v, v]];
      }
      case "u": {
        const rest = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 10));
        const m = /^\{([0-9a-fA-F]{1,6})\}/.exec(rest) ?? /^([0-9a-fA-F]{4})/.exec(rest);
        if (!m) throw new Unsupported("bad \\u escape");
        this.pos += m[0].length;
        const v = parseInt(m[1]!, 16);
        if (v > MAX_CP) throw new Unsupported("\\u escape beyond U+10FFFF");
        return [[v, v]];
      }
      default:
        if ("^$\\.*+?()[]{}|/-".includes(ch)) return [[c, c]];
        if (/[1-9k]/.test(ch)) throw new Unsupported("backreferences are not supported");
        if (/[pP]/.test(ch)) throw new Unsupported("unicode property escapes are not supported");
        throw new Unsupported(`escape \\${ch} is not supported`);
    }
  }

  private peek(): number | undefined {
    return this.cps[this.pos];
  }

  private next(): number {
    const c = this.cps[this.pos++];
    if (c === undefined) throw new Unsupported("pattern ends too early");
    return c;
  }

  private char(): string {
    return String.fromCodePoint(this.cps[this.pos] ?? 0x3f);
  }
}
