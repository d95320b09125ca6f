// Owns: a caller's own GBNF for a text answer (llama-server's `grammar`, qtc's `constraint.grammar`): parsing the
// dialect qtc prints (rules, literals, classes, `.`, groups, `* + ?`, `{m,n}`), its bounds (size, rule count,
// repetition counts, no left recursion, no special tokens), printing it into a turn's rule set under fresh names,
// and judging a text against it (the one validation path: the same tree the grammar was printed from).

import { err, ok, type Result } from "../errors.js";
import { charClass, type CodeRange, literal, type RuleSet } from "./gbnf.js";
import { intersect, normalizeRanges } from "./regex.js";
import { MAX_REPEAT, universe } from "./regex-gbnf.js";

/** Bounds on a caller's grammar, checked before any work. */
export const USER_GRAMMAR_LIMITS = Object.freeze({
  /** Most UTF-8 bytes of its source. */
  bytes: 32_768,
  /** Most rules. */
  rules: 256,
  /** Most characters of an answer the judge reads (longer answers are refused as too long to judge). */
  judgedChars: 65_536,
});

export type GExpr =
  | { t: "lit"; text: string }
  | { t: "set"; ranges: CodeRange[] }
  | { t: "ref"; name: string }
  | { t: "seq"; items: GExpr[] }
  | { t: "alt"; items: GExpr[] }
  | { t: "rep"; item: GExpr; min: number; max: number | undefined };

/** A parsed, bounded grammar: its rules by name (`root` among them). */
export interface UserGrammar {
  rules: ReadonlyMap<string, GExpr>;
}

class Bad extends Error {}

const ANY: CodeRange[] = [[0, 0x10ffff]];
const isWord = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_-]/.test(c);

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  run(): Map<string, GExpr> {
    const rules = new Map<string, GExpr>();
    this.space(true);
    while (this.i < this.s.length) {
      const name = this.name();
      this.space(false);
      if (!this.s.startsWith("::=", this.i)) this.bad(`expected "::=" after rule name "${name}"`);
      this.i += 3;
      this.space(true);
      if (rules.has(name)) this.bad(`rule "${name}" is defined twice`);
      rules.set(name, this.alternates(false));
      this.space(true);
    }
    return rules;
  }

  private bad(message: string): never {
    const line = this.s.slice(0, this.i).split("\n").length;
    throw new Bad(`line ${line}: ${message}`);
  }

  /** Skip blanks and `#` comments; newlines only where `newlines` (inside groups, between rules, after `|`). */
  private space(newlines: boolean): void {
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === " " || c === "\t" || (newlines && (c === "\n" || c === "\r"))) this.i++;
      else if (c === "#") while (this.i < this.s.length && this.s[this.i] !== "\n") this.i++;
      else break;
    }
  }

  private name(): string {
    const start = this.i;
    while (isWord(this.s[this.i])) this.i++;
    if (this.i === start) this.bad(`expected a rule name at ${JSON.stringify(this.s.slice(this.i, this.i + 20))}`);
    return this.s.slice(start, this.i);
  }

  private alternates(nested: boolean): GExpr {
    const items = [this.sequence(nested)];
    while (this.s[this.i] === "|") {
      this.i++;
      this.space(true);
      items.push(this.sequence(nested));
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private sequence(nested: boolean): GExpr {
    const items: GExpr[] = [];
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined || c === "|" || c === ")" || c === "\n" || c === "\r") break;
      // Outside a group a line break ends the rule (as llama.cpp reads it).
      let atom = this.atom();
      this.space(nested);
      atom = this.repeat(atom);
      items.push(atom);
      this.space(nested);
    }
    return items.length === 1 ? items[0]! : { t: "seq", items };
  }

  private atom(): GExpr {
    const c = this.s[this.i]!;
    if (c === '"') return { t: "lit", text: this.quoted() };
    if (c === "[") return { t: "set", ranges: this.charClass() };
    if (c === ".") {
      this.i++;
      return { t: "set", ranges: ANY };
    }
    if (c === "(") {
      this.i++;
      this.space(true);
      const inner = this.alternates(true);
      if (this.s[this.i] !== ")") this.bad('expected ")"');
      this.i++;
      return inner;
    }
    if (c === "<" || c === "!") this.bad("special tokens (<[id]>, <name>) cannot be part of an answer; write text");
    if (isWord(c)) return { t: "ref", name: this.name() };
    return this.bad(`unexpected ${JSON.stringify(c)}`);
  }

  private repeat(item: GExpr): GExpr {
    const c = this.s[this.i];
    if (c === "*" || c === "+" || c === "?") {
      this.i++;
      return { t: "rep", item, min: c === "+" ? 1 : 0, max: c === "?" ? 1 : undefined };
    }
    if (c !== "{") return item;
    const m = /^\{\s*(\d+)\s*(?:(,)\s*(\d*)\s*)?\}/.exec(this.s.slice(this.i));
    if (!m) this.bad('expected "{m}", "{m,}" or "{m,n}"');
    this.i += m[0].length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? undefined : Number(m[3]);
    if (min > MAX_REPEAT || (max !== undefined && max > MAX_REPEAT)) this.bad(`a repetition count above ${MAX_REPEAT}`);
    if (max !== undefined && max < min) this.bad(`{${min},${max}}: the upper count is below the lower`);
    return { t: "rep", item, min, max };
  }

  private quoted(): string {
    this.i++;
    let out = "";
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined || c === "\n") this.bad("unterminated literal");
      if (c === '"') break;
      out += this.char();
    }
    this.i++;
    return out;
  }

  private charClass(): CodeRange[] {
    this.i++;
    const negated = this.s[this.i] === "^";
    if (negated) this.i++;
    const ranges: [number, number][] = [];
    while (this.s[this.i] !== "]") {
      if (this.i >= this.s.length || this.s[this.i] === "\n") this.bad("unterminated character class");
      const lo = this.char().codePointAt(0)!;
      let hi = lo;
      if (this.s[this.i] === "-" && this.s[this.i + 1] !== "]") {
        this.i++;
        hi = this.char().codePointAt(0)!;
        if (hi < lo) this.bad("a class range whose end is before its start");
      }
      ranges.push([lo, hi]);
    }
    this.i++;
    const set = normalizeRanges(ranges);
    return negated ? normalizeRanges(invert(set)) : set;
  }

  /** One character of a literal or class, escapes decoded. */
  private char(): string {
    const c = String.fromCodePoint(this.s.codePointAt(this.i)!);
    this.i += c.length;
    if (c !== "\\") return c;
    const e = this.s[this.i++];
    const simple: Record<string, string> = { n: "\n", r: "\r", t: "\t", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-", "^": "^" };
    if (e !== undefined && simple[e] !== undefined) return simple[e];
    const width = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    const digits = this.s.slice(this.i, this.i + width);
    if (width === 0 || !new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) this.bad(`unknown escape "\\${e ?? ""}"`);
    this.i += width;
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff) this.bad(`escape \\${e}${digits} is past U+10FFFF`);
    return String.fromCodePoint(cp);
  }
}

function invert(ranges: readonly CodeRange[]): CodeRange[] {
  const out: CodeRange[] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

/** What `e` refers to at its left edge (through parts that can match nothing), and whether it can match nothing. */
function leftRefs(e: GExpr, nullable: ReadonlySet<string>, out: Set<string>): boolean {
  switch (e.t) {
    case "lit":
      return e.text === "";
    case "set":
      return false;
    case "ref":
      out.add(e.name);
      return nullable.has(e.name);
    case "seq":
      for (const item of e.items) if (!leftRefs(item, nullable, out)) return false;
      return true;
    case "alt":
      return e.items.map((item) => leftRefs(item, nullable, out)).some(Boolean);
    case "rep":
      return leftRefs(e.item, nullable, out) || e.min === 0;
  }
}

function refsOf(e: GExpr, out: string[] = []): string[] {
  if (e.t === "ref") out.push(e.name);
  else if (e.t === "seq" || e.t === "alt") for (const item of e.items) refsOf(item, out);
  else if (e.t === "rep") refsOf(e.item, out);
  return out;
}

/** Refuse an undefined rule, a missing root, and left recursion (llama.cpp refuses it; the judge could not end). */
function checkRules(rules: ReadonlyMap<string, GExpr>): string | undefined {
  if (!rules.has("root")) return 'the grammar has no "root" rule';
  for (const [name, body] of rules) {
    const missing = refsOf(body).find((r) => !rules.has(r));
    if (missing !== undefined) return `rule "${name}" refers to "${missing}", which is not defined`;
  }
  const nullable = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, body] of rules) {
      if (!nullable.has(name) && leftRefs(body, nullable, new Set())) {
        nullable.add(name);
        grew = true;
      }
    }
  }
  const left = new Map([...rules].map(([name, body]) => {
    const out = new Set<string>();
    leftRefs(body, nullable, out);
    return [name, out] as const;
  }));
  for (const start of rules.keys()) {
    const seen = new Set<string>();
    const stack = [...left.get(start)!];
    while (stack.length > 0) {
      const r = stack.pop()!;
      if (r === start) return `rule "${start}" is left-recursive (it can reach itself before reading a character); rewrite it with a repetition`;
      if (seen.has(r)) continue;
      seen.add(r);
      stack.push(...left.get(r)!);
    }
  }
  return undefined;
}

/** Parse and bound a caller's GBNF (errors are written for the caller: line and what is wrong). */
export function parseUserGrammar(source: string): Result<UserGrammar> {
  if (Buffer.byteLength(source, "utf8") > USER_GRAMMAR_LIMITS.bytes) {
    return err({ code: "too_large", message: `the grammar is over ${USER_GRAMMAR_LIMITS.bytes} bytes` });
  }
  let rules: Map<string, GExpr>;
  try {
    rules = new Parser(source).run();
  } catch (e) {
    if (e instanceof Bad) return err({ code: "invalid_option", message: `the grammar does not parse as GBNF: ${e.message}` });
    throw e;
  }
  if (rules.size > USER_GRAMMAR_LIMITS.rules) return err({ code: "too_large", message: `the grammar has ${rules.size} rules, over ${USER_GRAMMAR_LIMITS.rules}` });
  const allowed = universe("raw");
  if (nodesOf(rules).some((e) => e.t === "set" && intersect(e.ranges, allowed).length === 0)) {
    return err({ code: "invalid_option", message: "the grammar has a character class that holds only characters an answer cannot hold (\"<\" and control characters other than tab and line breaks)" });
  }
  const problem = checkRules(rules);
  return problem ? err({ code: "invalid_option", message: `the grammar is not accepted: ${problem}` }) : ok({ rules });
}

/** Every literal of a grammar (to refuse text an answer may not spell). */
export function grammarLiterals(g: UserGrammar): string[] {
  return nodesOf(g.rules).flatMap((e) => (e.t === "lit" ? [e.text] : []));
}

/** Every node of every rule. */
function nodesOf(rules: ReadonlyMap<string, GExpr>): GExpr[] {
  const out: GExpr[] = [];
  const walk = (e: GExpr): void => {
    out.push(e);
    if (e.t === "seq" || e.t === "alt") e.items.forEach(walk);
    else if (e.t === "rep") walk(e.item);
  };
  rules.forEach(walk);
  return out;
}

/**
 * Print the grammar into `rules` under fresh names (`answer-<name>`); returns the expression of its root. Classes
 * are narrowed to what an answer may hold (no `<`, no control characters but tab and line breaks): never wider.
 */
export function printUserGrammar(rules: RuleSet, g: UserGrammar): string {
  const names = new Map<string, string>();
  for (const name of g.rules.keys()) names.set(name, rules.reserve(`answer-${name}`));
  const allowed = universe("raw");
  const print = (e: GExpr): string => {
    switch (e.t) {
      case "lit":
        return literal(e.text);
      case "set": {
        return charClass(intersect(e.ranges, allowed));
      }
      case "ref":
        return names.get(e.name)!;
      case "seq":
        return e.items.length === 0 ? '""' : e.items.map(print).join(" ");
      case "alt":
        return `(${e.items.map(print).join(" | ")})`;
      case "rep": {
        const inner = e.item.t === "lit" || e.item.t === "set" || e.item.t === "ref" ? print(e.item) : `(${print(e.item)})`;
        return e.max === undefined ? `${inner}{${e.min},}` : `${inner}{${e.min},${e.max}}`;
      }
    }
  };
  for (const [name, body] of g.rules) rules.define(names.get(name)!, print(body));
  return names.get("root")!;
}

/** Whether the grammar accepts exactly `text` (from `root`, to the end). Work is bounded by text × grammar size. */
export function grammarAccepts(g: UserGrammar, text: string): boolean {
  const cps = [...text].map((c) => c.codePointAt(0)!);
  const memo = new Map<string, ReadonlySet<number>>();
  const inSet = (ranges: readonly CodeRange[], cp: number) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
  // Every end position `e` can reach from each start in `from`.
  const step = (e: GExpr, from: ReadonlySet<number>): Set<number> => {
    const out = new Set<number>();
    switch (e.t) {
      case "lit": {
        const want = [...e.text].map((c) => c.codePointAt(0)!);
        for (const p of from) if (want.every((cp, k) => cps[p + k] === cp)) out.add(p + want.length);
        return out;
      }
      case "set":
        for (const p of from) if (p < cps.length && inSet(e.ranges, cps[p]!)) out.add(p + 1);
        return out;
      case "ref":
        for (const p of from) for (const end of rule(e.name, p)) out.add(end);
        return out;
      case "seq": {
        let at: ReadonlySet<number> = from;
        for (const item of e.items) if ((at = step(item, at)).size === 0) break;
        return at as Set<number>;
      }
      case "alt":
        for (const item of e.items) for (const end of step(item, from)) out.add(end);
        return out;
      case "rep": {
        let frontier: ReadonlySet<number> = from;
        const seen = new Set<number>();
        if (e.min === 0) for (const p of from) out.add(p);
        for (let n = 1; e.max === undefined || n <= e.max; n++) {
          // Unbounded: past the lower count, a position seen before adds nothing new (the loop ends).
          const next = [...step(e.item, frontier)].filter((p) => !(e.max === undefined && n > e.min && seen.has(p)));
          if (next.length === 0) break;
          if (n >= e.min) for (const p of next) seen.add(p);
          if (n >= e.min) for (const p of next) out.add(p);
          frontier = new Set(next);
        }
        return out;
      }
    }
  };
  const rule = (name: string, at: number): ReadonlySet<number> => {
    const key = `${name}@${at}`;
    const known = memo.get(key);
    if (known) return known;
    memo.set(key, new Set()); // left recursion is refused at parse time; this only guards against a loop
    const ends = step(g.rules.get(name)!, new Set([at]));
    memo.set(key, ends);
    return ends;
  };
  return rule("root", 0).has(cps.length);
}
