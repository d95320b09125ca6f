// Owns: the one reader of GBNF text (llama.cpp's dialect, as qtc's compiler writes it and callers send it): rules,
// literals, escapes, classes, `.`, special tokens `<[id]>`, groups, `* + ?` and `{m,n}`. What is built from what it
// reads is a sink's: the engine's flat program (gbnf-program.ts), a tree per rule that a caller's grammar is vetted
// on (user-gbnf.ts), or the forced units the cost bound counts (src/runtime/grammar-cost.ts). Groups are kept on
// an explicit stack, so nesting costs array entries, not call-stack frames (8,000 parentheses overflowed the
// recursive readers this replaced).

/** A syntax error or a bound, with the line it is on (`what` says what is wrong, for the reader's caller to word). */
export class GbnfError extends Error {
  constructor(
    readonly what: string,
    readonly line?: number,
  ) {
    super(line === undefined ? what : `GBNF line ${line}: ${what}`);
  }
}

/** What a sink builds from the reader's parts; `T` is one element of a sequence. */
export interface GbnfSink<T> {
  /** Push the elements of a literal (its code points `cps[0..n)`) onto `seq`. */
  literal(seq: T[], cps: readonly number[], n: number): void;
  /** A class: inclusive code point ranges [lo, hi, lo, hi, …] (unsorted, as written); `.` is negated and empty. */
  charClass(ranges: number[], negated: boolean): T;
  /** A special token `<[id]>` (read only when the reader's `specialTokens` is set). */
  token(id: number): T;
  /** A reference to the rule `name` (defined before or after). */
  ref(name: string): T;
  /** A parenthesized group of alternatives. */
  group(alts: T[][]): T;
  /** The elements that replace `items` (the last element read) repeated `min` to `max` times; `braces`: written `{m,n}`. */
  repeat(items: T[], min: number, max: number, braces: boolean): T[];
  /** Rule `name`'s alternatives (each name is defined once: the reader refuses a second definition). */
  rule(name: string, alts: T[][]): void;
}

export interface ReaderOptions {
  /** Whether `<[id]>` is read as a special token; refused otherwise (a caller's answer grammar). Default: true. */
  specialTokens?: boolean;
  /** The largest count a `{m,n}` may have. Default: 10,000. */
  maxRepeat?: number;
}

const SIMPLE_ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, "\\": 92, '"': 34, "[": 91, "]": 93, "-": 45, "^": 94 };

/** Read every rule of `src` into `sink`. Throws GbnfError on a syntax error or a bound. */
export function readGbnf<T>(src: string, sink: GbnfSink<T>, options: ReaderOptions = {}): void {
  new Reader(src, sink, options.specialTokens ?? true, options.maxRepeat ?? 10_000).rules();
}

class Reader<T> {
  private i = 0;
  private readonly defined = new Set<string>();
  /** One literal's code points (reused: a literal per element was an array per element). */
  private readonly cps: number[] = [];

  constructor(
    private readonly src: string,
    private readonly sink: GbnfSink<T>,
    private readonly specialTokens: boolean,
    private readonly maxRepeat: number,
  ) {}

  rules(): void {
    this.space(true);
    while (this.i < this.src.length) {
      const name = this.name();
      this.space(false);
      if (!this.src.startsWith("::=", this.i)) this.fail(`expected "::=" after rule name "${name}"`);
      this.i += 3;
      this.space(true);
      if (this.defined.has(name)) this.fail(`rule "${name}" is defined twice`);
      this.defined.add(name);
      this.sink.rule(name, this.alternates());
      this.space(true);
    }
  }

  private fail(what: string): never {
    const line = this.src.slice(0, this.i).split("\n").length;
    throw new GbnfError(what, line);
  }

  /** Spaces and comments; newlines too when `newlines` (inside groups, between rules, after `|`). */
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
    if (this.i === start) this.fail(`expected a rule name at ${JSON.stringify(this.src.slice(this.i, this.i + 20))}`);
    return this.src.slice(start, this.i);
  }

  /** A rule's alternatives, to the end of its line (groups may span lines). */
  private alternates(): T[][] {
    const open: { alts: T[][]; seq: T[]; lastStart: number }[] = [{ alts: [], seq: [], lastStart: 0 }];
    const s = this.src;
    for (;;) {
      const top = open[open.length - 1]!;
      this.space(open.length > 1);
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
        parent.seq.push(this.sink.group([...top.alts, top.seq]));
        continue;
      }
      if (c === undefined || c === ")" || c === "\n") {
        if (open.length > 1) this.fail("expected ) to close a group");
        if (c === ")") this.fail('unexpected ")"');
        return [...top.alts, top.seq];
      }
      top.lastStart = this.element(top.seq, top.lastStart);
    }
  }

  /** Read one element (or a repetition of the last one) into `seq`; returns where the last element starts. */
  private element(seq: T[], lastStart: number): number {
    const s = this.src;
    const c = s[this.i]!;
    if (c === '"') {
      lastStart = seq.length;
      this.i++;
      let n = 0;
      while (s[this.i] !== '"') {
        if (this.i >= s.length || s[this.i] === "\n") this.fail("unterminated literal");
        this.cps[n++] = this.char();
      }
      this.i++;
      this.sink.literal(seq, this.cps, n);
    } else if (c === "[") {
      lastStart = seq.length;
      seq.push(this.charClass());
    } else if (c === ".") {
      lastStart = seq.length;
      this.i++;
      seq.push(this.sink.charClass([], true));
    } else if ((c === "<" || c === "!") && !this.specialTokens) {
      this.fail("special tokens (<[id]>, <name>) cannot be part of an answer; write text");
    } else if (c === "<" && s[this.i + 1] === "[") {
      const m = /^<\[(\d+)\]>/.exec(s.slice(this.i, this.i + 24));
      if (!m) this.fail("bad token reference");
      this.i += m[0].length;
      lastStart = seq.length;
      seq.push(this.sink.token(Number(m[1])));
    } else if (isNameChar(s.charCodeAt(this.i))) {
      lastStart = seq.length;
      seq.push(this.sink.ref(this.name()));
    } else if (c === "*" || c === "+" || c === "?") {
      this.i++;
      this.repeat(seq, lastStart, c === "+" ? 1 : 0, c === "?" ? 1 : Infinity, false);
    } else if (c === "{") {
      const m = /^\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}/.exec(s.slice(this.i, this.i + 48));
      if (!m) this.fail('expected "{m}", "{m,}" or "{m,n}"');
      this.i += m[0].length;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (min > this.maxRepeat || (max !== Infinity && max > this.maxRepeat)) this.fail(`a repetition count above ${this.maxRepeat}`);
      if (max < min) this.fail(`{${min},${max}}: the upper count is below the lower`);
      this.repeat(seq, lastStart, min, max, true);
    } else this.fail(`unexpected ${JSON.stringify(c)}`);
    return lastStart;
  }

  /** Replace seq[from..] (the last element) with its repetition. */
  private repeat(seq: T[], from: number, min: number, max: number, braces: boolean): void {
    if (from >= seq.length) this.fail("a repetition of nothing");
    const items = seq.splice(from);
    for (const it of this.sink.repeat(items, min, max, braces)) seq.push(it);
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
    if (e !== undefined && e in SIMPLE_ESCAPES) {
      this.i += 2;
      return SIMPLE_ESCAPES[e]!;
    }
    const width = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    const hex = s.slice(this.i + 2, this.i + 2 + width);
    if (width === 0 || hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) this.fail(`unknown escape "\\${e ?? ""}"`);
    const cp = parseInt(hex, 16);
    if (cp > 0x10ffff) this.fail(`escape \\${e}${hex} is past U+10FFFF`);
    this.i += 2 + width;
    return cp;
  }

  private charClass(): T {
    this.i++; // [
    const negated = this.src[this.i] === "^";
    if (negated) this.i++;
    const ranges: number[] = [];
    while (this.src[this.i] !== "]") {
      if (this.i >= this.src.length || this.src[this.i] === "\n") this.fail("unterminated character class");
      const lo = this.char();
      let hi = lo;
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]") {
        this.i++;
        hi = this.char();
        if (hi < lo) this.fail("a class range whose end is before its start");
      }
      ranges.push(lo, hi);
    }
    this.i++;
    return this.sink.charClass(ranges, negated);
  }
}

/** [a-zA-Z0-9_-] */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}
