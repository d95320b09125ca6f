// Owns: the regular-expression engine ajv runs schema `pattern` and `patternProperties` on: ECMAScript (`u`
// flag) syntax translated to RE2 syntax and matched by re2js in linear time, so no pattern a client sends can
// make parse() backtrack. The translation keeps ECMAScript's meaning (`.` and `\s` as ECMAScript defines
// them, `\uHHHH` escapes and surrogate pairs, literal `[` in classes); constructs RE2 cannot match in linear
// time (lookaround, backreferences) are refused, which ajv reports as a schema that does not compile.

import { RE2JS } from "re2js";

/** What ajv's `code.regExp` option takes: a factory of objects with `test`, plus a name for generated code. */
export interface LinearRegExpEngine {
  (pattern: string, flags: string): { test(s: string): boolean };
  code: string;
}

export type Re2Translation = { ok: true; source: string } | { ok: false; reason: string };

/** ajv's regExp engine: compiles on re2js (throws, as `new RegExp` would, for a pattern it refuses). */
export const linearRegExp: LinearRegExpEngine = Object.assign(
  (pattern: string, _flags: string) => {
    const t = translateToRe2(pattern);
    if (!t.ok) throw new SyntaxError(`pattern ${JSON.stringify(pattern.slice(0, 200))} is not supported: ${t.reason}`);
    const re = RE2JS.compile(t.source);
    const text = `/${pattern}/u`;
    return { test: (s: string) => re.test(s), toString: () => text };
  },
  { code: "linearRegExp" },
);

const hex = (cp: number) => `\\x{${cp.toString(16)}}`;
const SPACE: Array<[number, number]> = [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];
const NOT_SPACE = complement(SPACE);
const ranges = (rs: Array<[number, number]>) => rs.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("");
const DOT = `[^${hex(0x0a)}${hex(0x0d)}${hex(0x2028)}${hex(0x2029)}]`;
const ANY = `[${hex(0)}-${hex(0x10ffff)}]`;
const CONTROL: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, "0": 0 };

class Refused extends Error {}

/** ASCII punctuation (not alphanumeric, not a `u`-flag syntax character): escaped, it is the character itself. */
const PLAIN_PUNCTUATION = /^[!-/:-@[-`{-~]$/;
const U_SYNTAX = "^$\\.*+?()[]{}|/";
const hexEscape = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;

/**
 * The pattern as the `u` flag reads it, where schema authors wrote what every other dialect (RE2, PCRE, Python,
 * Rust, ECMAScript without flags) reads as a literal: escaped punctuation (`\:`, `\@`, `\#`), and a `{`, `}` or
 * `]` that opens or closes nothing (`{{.+}}`, `\{d}`). Those become `\xHH`; the `u` flag alone calls them syntax
 * errors, and ajv then refused the whole schema. Everything else is left as it is.
 */
export function ecmaPattern(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      // `\u{…}`, `\p{…}`: the braces belong to the escape.
      const braced = "upP".includes(next) && pattern[i + 2] === "{" ? pattern.slice(i, pattern.indexOf("}", i) + 1 || undefined) : undefined;
      out += braced ?? (PLAIN_PUNCTUATION.test(next) && !U_SYNTAX.includes(next) ? hexEscape(next) : c + next);
      i += braced ? braced.length - 1 : 1;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === "{") {
      const quantifier = /^\{\d+(,\d*)?\}/.exec(pattern.slice(i))?.[0];
      out += quantifier ?? hexEscape(c);
      i += quantifier ? quantifier.length - 1 : 0;
    } else out += c === "}" || c === "]" ? hexEscape(c) : c;
  }
  return out;
}

/** A schema pattern as a JavaScript RegExp (`u` flag, escaped punctuation read as itself); throws a SyntaxError as `new RegExp` does. */
export function patternRegExp(pattern: string): RegExp {
  return new RegExp(ecmaPattern(pattern), "u");
}

/**
 * Translate an ECMAScript pattern (`u` flag) to RE2 syntax with the same meaning, or say why it cannot be.
 * The pattern must already be valid ECMAScript (checked here with `new RegExp`, which does not run it).
 */
export function translateToRe2(pattern: string): Re2Translation {
  try {
    patternRegExp(pattern);
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
  try {
    return { ok: true, source: new Translator(ecmaPattern(pattern)).run() };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, reason: e.message };
    throw e;
  }
}

class Translator {
  private readonly cps: number[];
  private i = 0;
  private out = "";

  constructor(source: string) {
    this.cps = [...source].map((c) => c.codePointAt(0)!);
  }

  run(): string {
    while (this.i < this.cps.length) {
      const c = String.fromCodePoint(this.cps[this.i++]!);
      if (c === "\\") this.out += this.escape(false);
      else if (c === ".") this.out += DOT;
      else if (c === "[") this.out += this.klass();
      else if (c === "(") this.out += this.group();
      else if (c === "{") this.out += this.quantifier();
      else if ("|)*+?^$".includes(c)) this.out += c;
      else this.out += literal(this.cps[this.i - 1]!);
    }
    return this.out;
  }

  private peek(k = 0): string | undefined {
    const cp = this.cps[this.i + k];
    return cp === undefined ? undefined : String.fromCodePoint(cp);
  }

  private group(): string {
    if (this.peek() !== "?") return "(";
    const a = this.peek(1);
    const b = this.peek(2);
    if (a === ":") {
      this.i += 2;
      return "(?:";
    }
    if (a === "=" || a === "!" || (a === "<" && (b === "=" || b === "!"))) throw new Refused("lookaround cannot be matched in linear time");
    if (a === "<") {
      this.i += 2;
      let name = "";
      while (this.peek() !== ">") name += this.peek(), this.i++;
      this.i++;
      return `(?P<${name}>`;
    }
    throw new Refused(`unknown group syntax "(?${a ?? ""}"`);
  }

  /** `{n}`, `{n,}`, `{n,m}` (the `u` flag makes any other `{` a syntax error, so this is a quantifier). */
  private quantifier(): string {
    let q = "{";
    while (this.peek() !== "}") q += this.peek(), this.i++;
    this.i++;
    return q + "}";
  }

  private klass(): string {
    let out = "[";
    if (this.peek() === "^") {
      out += "^";
      this.i++;
    }
    if (this.peek() === "]") {
      this.i++;
      // `[]` matches nothing, `[^]` any code point.
      return out === "[^" ? ANY : `[^${hex(0)}-${hex(0x10ffff)}]`;
    }
    let prev: number | undefined;
    while (this.peek() !== "]") {
      const c = this.peek()!;
      this.i++;
      if (c === "-" && prev !== undefined && this.peek() !== "]") {
        const hi = this.classAtom();
        if (typeof hi !== "number") throw new Refused("a class range ends in a class escape");
        out += `-${hex(hi)}`;
        prev = undefined;
        continue;
      }
      this.i--;
      const atom = this.classAtom();
      if (typeof atom === "number") {
        out += hex(atom);
        prev = atom;
      } else {
        out += atom.text;
        prev = undefined;
      }
    }
    this.i++;
    return out + "]";
  }

  /** One class member: a code point, or a class escape as RE2 class text (`\d`, space ranges, …). */
  private classAtom(): number | { text: string } {
    const c = this.peek()!;
    this.i++;
    if (c !== "\\") return this.cps[this.i - 1]!;
    const e = this.peek()!;
    if (e === "b") {
      this.i++;
      return 0x08;
    }
    if (e === "-") {
      this.i++;
      return 0x2d;
    }
    const text = this.escape(true);
    const single = /^\\x\{([0-9a-f]+)\}$/.exec(text);
    return single ? parseInt(single[1]!, 16) : { text };
  }

  /** After a backslash: the RE2 text for the escape (inside a class: class text). */
  private escape(inClass: boolean): string {
    const e = this.peek()!;
    this.i++;
    if ("dDwW".includes(e)) return `\\${e}`;
    if (e === "s") return inClass ? ranges(SPACE) : `[${ranges(SPACE)}]`;
    if (e === "S") return inClass ? ranges(NOT_SPACE) : `[${ranges(NOT_SPACE)}]`;
    if (e === "b" || e === "B") return `\\${e}`;
    if (e in CONTROL) return hex(CONTROL[e]!);
    if (/[1-9]/.test(e) || e === "k") throw new Refused("backreferences cannot be matched in linear time");
    if (e === "x") return hex(this.hexDigits(2));
    if (e === "u") return hex(this.unicodeEscape());
    if (e === "c") return hex(this.cps[this.i++]! % 32);
    if (e === "p" || e === "P") return this.property(e);
    return literal(this.cps[this.i - 1]!);
  }

  private hexDigits(n: number): number {
    let s = "";
    for (let k = 0; k < n; k++) s += this.peek(), this.i++;
    return parseInt(s, 16);
  }

  /** `\uHHHH` (a surrogate pair written as two escapes is one code point) or `\u{H…}`. */
  private unicodeEscape(): number {
    if (this.peek() === "{") {
      let s = "";
      this.i++;
      while (this.peek() !== "}") s += this.peek(), this.i++;
      this.i++;
      return parseInt(s, 16);
    }
    const cp = this.hexDigits(4);
    if (cp >= 0xd800 && cp <= 0xdbff && this.peek() === "\\" && this.peek(1) === "u" && this.peek(2) !== "{") {
      const save = this.i;
      this.i += 2;
      const lo = this.hexDigits(4);
      if (lo >= 0xdc00 && lo <= 0xdfff) return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
      this.i = save;
    }
    return cp;
  }

  /** `\p{L}`, `\p{Lu}`, `\p{Script=Greek}` / `\p{sc=Greek}` map onto RE2's `\p{…}`; other properties are refused. */
  private property(e: string): string {
    this.i++; // "{"
    let name = "";
    while (this.peek() !== "}") name += this.peek(), this.i++;
    this.i++;
    const m = /^(?:(?:Script|sc)=)?([A-Za-z_]+)$/.exec(name);
    const general = /^(?:[CLMNPSZ][a-z]?)$/.test(name);
    if (!m || (!general && !/^(?:Script|sc)=/.test(name))) throw new Refused(`the property escape \\${e}{${name}} is not supported; use a general category (\\p{L}) or a script (\\p{Script=Greek})`);
    return `\\${e}{${m[1]}}`;
  }
}

/** A code point as RE2 text: letters and digits as they are, anything else as `\x{…}` (never special). */
function literal(cp: number): string {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ? String.fromCodePoint(cp) : hex(cp);
}

function complement(rs: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of rs) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}
