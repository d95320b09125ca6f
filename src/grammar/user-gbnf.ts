// Owns: a caller's own GBNF for a text answer (llama-server's `grammar`, qtc's `constraint.grammar`): parsing the
// dialect qtc prints (rules, literals, classes, `.`, groups, `* + ?`, `{m,n}`), its bounds (size, rule count,
// repetition counts, nesting, expanded size, no left recursion, no ambiguous repetition, no special tokens), and
// printing it into a turn's rule set under fresh names. Every walk here is iterative (an explicit stack), so no
// grammar under the size bound can overflow the call stack, whatever it nests or refers to. The answer is judged
// by the engine that constrains (src/runtime/answer-request.ts), from the GBNF printed here.

import { err, ok, type Result } from "../errors.js";
import { charClass, type CodeRange, literal, RuleSet } from "./gbnf.js";
import { intersect, normalizeRanges } from "./regex.js";
import { MAX_REPEAT, universe } from "./regex-gbnf.js";
import { childrenOf, expandedSize, type GExpr, grammarAmbiguity, postOrder } from "./user-gbnf-ambiguity.js";

export type { GExpr };

/** Bounds on a caller's grammar, checked before any work. */
export const USER_GRAMMAR_LIMITS = Object.freeze({
  /** Most UTF-8 bytes of its source. */
  bytes: 32_768,
  /** Most rules. */
  rules: 256,
  /** Most characters of an answer the judge reads (longer answers are refused as too long to judge). */
  judgedChars: 65_536,
  /** Most groups nested one inside another, once groups that change nothing are unwrapped. */
  nesting: 100,
  /**
   * Most elements the grammar expands to once every `{m,n}` is unrolled (what the engine's program, its compile
   * time and its states grow with): 390 chains of `("k" [a-z]){0,1000}` count 1,170,000, and 380 distinct ones
   * took seconds to compile and about 100 MB each; 50,000 (16 such chains) compile in tens of milliseconds.
   */
  expandedElements: 50_000,
});

/** A parsed, bounded grammar: its rules by name (`root` among them). */
export interface UserGrammar {
  rules: ReadonlyMap<string, GExpr>;
}

class Bad extends Error {}

const ANY: CodeRange[] = [[0, 0x10ffff]];
const isWord = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_-]/.test(c);

/** One open group while reading: its finished alternatives and the sequence being read. */
interface Open {
  alts: GExpr[];
  seq: GExpr[];
}

/** A sequence or alternation of parts, one part unwrapped; nested ones of the same kind spliced in. */
function join(t: "seq" | "alt", parts: GExpr[]): GExpr {
  const items = parts.flatMap((p) => (p.t === t ? p.items : [p]));
  return items.length === 1 ? items[0]! : { t, items };
}

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
      rules.set(name, this.body());
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

  /**
   * A rule's body, to the end of its line (groups may span lines). Groups are kept on an explicit stack, so 8,000
   * nested parentheses cost 8,000 entries of an array, not 8,000 frames of the call stack.
   */
  private body(): GExpr {
    const open: Open[] = [{ alts: [], seq: [] }];
    for (;;) {
      const nested = open.length > 1;
      const top = open[open.length - 1]!;
      const c = this.s[this.i];
      if (c === undefined || (!nested && (c === "\n" || c === "\r"))) {
        if (nested) this.bad('expected ")"');
        return this.close(top);
      }
      if (c === "|") {
        top.alts.push(join("seq", top.seq));
        top.seq = [];
        this.i++;
        this.space(true);
        continue;
      }
      if (c === "(") {
        this.i++;
        this.space(true);
        open.push({ alts: [], seq: [] });
        continue;
      }
      let atom: GExpr;
      if (c === ")") {
        if (!nested) this.bad('unexpected ")"');
        this.i++;
        open.pop();
        atom = this.close(top);
      } else atom = this.atom();
      const into = open[open.length - 1]!;
      this.space(open.length > 1);
      into.seq.push(this.repeat(atom));
      this.space(open.length > 1);
    }
  }

  private close(g: Open): GExpr {
    return join("alt", [...g.alts, join("seq", g.seq)]);
  }

  private atom(): GExpr {
    const c = this.s[this.i]!;
    if (c === '"') return { t: "lit", text: this.quoted() };
    if (c === "[") return { t: "set", ranges: this.charClass() };
    if (c === ".") {
      this.i++;
      return { t: "set", ranges: ANY };
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
    const m = /^\{\s*(\d+)\s*(?:(,)\s*(\d*)\s*)?\}/.exec(this.s.slice(this.i, this.i + 48));
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

/** Every node of every rule. */
function nodesOf(rules: ReadonlyMap<string, GExpr>): GExpr[] {
  return [...rules.values()].flatMap(postOrder);
}

/** How deep groups nest in `e` (a leaf is 1). */
function depthOf(e: GExpr): number {
  const depth = new Map<GExpr, number>();
  for (const n of postOrder(e)) depth.set(n, 1 + Math.max(0, ...childrenOf(n).map((k) => depth.get(k)!)));
  return depth.get(e)!;
}

/**
 * Refuse an undefined rule, a missing root, and left recursion (llama.cpp refuses it; no parser could end).
 * `nullable`: the rules that can match nothing (from the ambiguity analysis).
 */
function checkRules(rules: ReadonlyMap<string, GExpr>, nullableRules: ReadonlySet<string>): string | undefined {
  if (!rules.has("root")) return 'the grammar has no "root" rule';
  for (const [name, body] of rules) {
    const missing = postOrder(body).find((e) => e.t === "ref" && !rules.has(e.name));
    if (missing !== undefined && missing.t === "ref") return `rule "${name}" refers to "${missing.name}", which is not defined`;
  }
  // What each rule refers to at its left edge (through parts that can match nothing).
  const left = new Map<string, Set<string>>();
  for (const [name, body] of rules) {
    const info = new Map<GExpr, { nullable: boolean; refs: string[] }>();
    for (const e of postOrder(body)) {
      const kids = childrenOf(e).map((k) => info.get(k)!);
      if (e.t === "lit") info.set(e, { nullable: e.text === "", refs: [] });
      else if (e.t === "set") info.set(e, { nullable: false, refs: [] });
      else if (e.t === "ref") info.set(e, { nullable: nullableRules.has(e.name), refs: [e.name] });
      else if (e.t === "alt") info.set(e, { nullable: kids.some((k) => k.nullable), refs: kids.flatMap((k) => k.refs) });
      else if (e.t === "rep") info.set(e, { nullable: kids[0]!.nullable || e.min === 0, refs: kids[0]!.refs });
      else {
        const refs: string[] = [];
        let nullable = true;
        for (const k of kids) {
          refs.push(...k.refs);
          if (!k.nullable) {
            nullable = false;
            break;
          }
        }
        info.set(e, { nullable, refs });
      }
    }
    left.set(name, new Set(info.get(body)!.refs));
  }
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

/** Parse and bound a caller's GBNF (errors are written for the caller: line, rule and what is wrong). */
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
  for (const [name, body] of rules) {
    if (depthOf(body) > USER_GRAMMAR_LIMITS.nesting) return err({ code: "too_large", message: `rule "${name}" nests groups over ${USER_GRAMMAR_LIMITS.nesting} deep; move inner groups into rules of their own` });
  }
  const allowed = universe("raw");
  if (nodesOf(rules).some((e) => e.t === "set" && intersect(e.ranges, allowed).length === 0)) {
    return err({ code: "invalid_option", message: "the grammar has a character class that holds only characters an answer cannot hold (\"<\" and control characters other than tab and line breaks)" });
  }
  // Ambiguity first (its cost is linear in the source, not in the unrolled size): it says more than the size.
  const ambiguity = grammarAmbiguity(rules);
  const problem = (ambiguity.nullable && checkRules(rules, ambiguity.nullable)) || ambiguity.problem;
  if (problem) return err({ code: "invalid_option", message: `the grammar is not accepted: ${problem}` });
  const size = expandedSize(rules);
  if (size.elements > USER_GRAMMAR_LIMITS.expandedElements) {
    return err({ code: "too_large", message: `the grammar expands to over ${USER_GRAMMAR_LIMITS.expandedElements} elements once its repetitions are unrolled (rule "${size.largest}" is the largest); lower its {m,n} counts` });
  }
  return ok({ rules });
}

/** Every literal of a grammar (to refuse text an answer may not spell). */
export function grammarLiterals(g: UserGrammar): string[] {
  return nodesOf(g.rules).flatMap((e) => (e.t === "lit" ? [e.text] : []));
}

/**
 * Print the grammar into `rules` under fresh names (`answer-<name>`); returns the expression of its root. Classes
 * are narrowed to what an answer may hold (no `<`, no control characters but tab and line breaks): never wider.
 */
export function printUserGrammar(rules: RuleSet, g: UserGrammar): string {
  const names = new Map<string, string>();
  for (const name of g.rules.keys()) names.set(name, rules.reserve(`answer-${name}`));
  const allowed = universe("raw");
  for (const [name, body] of g.rules) {
    const text = new Map<GExpr, string>();
    for (const e of postOrder(body)) {
      const kids = childrenOf(e).map((k) => text.get(k)!);
      switch (e.t) {
        case "lit":
          text.set(e, literal(e.text));
          break;
        case "set":
          text.set(e, charClass(intersect(e.ranges, allowed)));
          break;
        case "ref":
          text.set(e, names.get(e.name)!);
          break;
        case "seq":
          text.set(e, kids.length === 0 ? '""' : kids.join(" "));
          break;
        case "alt":
          text.set(e, `(${kids.join(" | ")})`);
          break;
        case "rep": {
          const inner = e.item.t === "lit" || e.item.t === "set" || e.item.t === "ref" ? kids[0]! : `(${kids[0]!})`;
          text.set(e, e.max === undefined ? `${inner}{${e.min},}` : `${inner}{${e.min},${e.max}}`);
        }
      }
    }
    rules.define(names.get(name)!, text.get(body)!);
  }
  return names.get("root")!;
}

/** The grammar alone as GBNF text (what the answer judge hands the engine). */
export function userGrammarGbnf(g: UserGrammar): string {
  const rules = new RuleSet();
  return rules.print(printUserGrammar(rules, g)).text;
}
