// Owns: printing the compiler's value tree (schema-nodes.ts) in xgrammar's EBNF dialect, without byte budgets:
// strings as right-recursive rules (xgrammar's own JSON-string shape, which its mask cache handles in µs), counts
// unrolled only when small, and every bound the dialect cannot hold cheaply listed for the post-parser's validator.

import type { ParameterTags } from "../formats/types.js";
import { internal } from "../errors.js";
import { canonicalJson, jsonString } from "./canonical-json.js";
import { avoidsAny, type KeyAvoid } from "./extra-key.js";
import type { CodeRange, RuleSet } from "./gbnf.js";
import { integerRule, numberRule } from "./numbers.js";
import { complement, inRanges, intersect, normalizeRanges, type ParsedPattern, type Re } from "./regex.js";
import { deref, type Node } from "./schema-nodes.js";
import { formatRule } from "./string-formats.js";

/**
 * Most items, members or calls unrolled as nested optionals. xgrammar 0.1.27 compiles `X{m,n}` of a rule into a
 * matcher that takes ~0.2 s per token mask, and of a character class into seconds of compile (3.8 s for
 * `[^"]{0,64}`; measured by `npm run bench:grammar`), so larger counts are left to the validator.
 */
export const XG_MAX_UNROLL = 8;

/** A bound the xgrammar grammar does not hold: the post-parser's validator judges it. */
export interface XgLeftToValidator {
  keyword: string;
  path: string;
}

/** An EBNF literal in xgrammar's escapes (non-ASCII text is written as itself, UTF-8). */
export function xgLiteral(text: string): string {
  let out = '"';
  for (const ch of text) out += xgEscape(ch, false);
  return out + '"';
}

/** An EBNF character class from inclusive code-point ranges. */
export function xgClass(ranges: readonly CodeRange[], negated = false): string {
  let out = negated ? "[^" : "[";
  for (const [lo, hi] of ranges) {
    out += xgEscape(String.fromCodePoint(lo), true);
    if (hi > lo) out += "-" + xgEscape(String.fromCodePoint(hi), true);
  }
  return out + "]";
}

function xgEscape(ch: string, inClass: boolean): string {
  const cp = ch.codePointAt(0)!;
  if (ch === "\\") return "\\\\";
  if (ch === '"') return '\\"';
  if (inClass && (ch === "]" || ch === "[" || ch === "-" || ch === "^")) return "\\" + ch;
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  if (cp < 0x20 || cp === 0x7f) return "\\x" + cp.toString(16).padStart(2, "0");
  // Surrogate code points cannot be written as UTF-8 text; xgrammar reads `\uXXXX`.
  if (cp >= 0xd800 && cp <= 0xdfff) return "\\u" + cp.toString(16).padStart(4, "0");
  return ch;
}

const ESCAPE = 'xg-escape ::= ["\\\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F]';

/** Prints value nodes into one RuleSet (names shared with the GBNF printer's rules: the same helper class). */
export class XgValuePrinter {
  private readonly byNode = new Map<string, string>();
  readonly leftToValidator: XgLeftToValidator[] = [];

  constructor(private readonly rules: RuleSet) {}

  /** The EBNF of a JSON value (`raw` = a qwen3coder parameter value: strings as raw text, Python scalars too). */
  value(n: Node, raw = false): string {
    const d = deref(n);
    if (d.k === "ref") return this.json("any");
    const key = `${d.id}:${raw}`;
    const known = this.byNode.get(key);
    if (known) return known;
    if (n.k === "ref" || d !== n) {
      // A reference may be recursive: reserve its rule before printing the target.
      const name = this.rules.reserve(`${d.hint}-${raw ? "raw" : "v"}`);
      this.byNode.set(key, name);
      this.rules.define(name, this.body(d, raw));
      return name;
    }
    const expr = this.body(d, raw);
    this.byNode.set(key, expr);
    return expr;
  }

  /** qwen3coder arguments: one parameter block per member in schema order (optional ones may be left out), raw values. */
  params(n: Node, p: ParameterTags): string {
    const d = deref(n);
    if (d.k === "literal") {
      const objects = d.values.filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v));
      const texts = objects.map((v) => Object.entries(v).map(([k, x]) => p.open + k + p.end + (typeof x === "string" ? x : canonicalJson(x)) + p.close).join(""));
      return this.rules.add(`${d.hint}-params`, [...new Set(texts)].map(xgLiteral).join(" | ") || '""');
    }
    if (d.k === "union") return this.rules.add(`${d.hint}-params`, [...new Set(d.options.map((o) => this.params(o, p)))].join(" | "));
    if (d.k !== "object") return '""';
    if (d.nonEmpty || d.minExtra) this.left("minProperties", d.path);
    const parts = d.props.filter((m) => m.required || !admitsNothing(m.node)).map((m) => {
      const block = `${xgLiteral(p.open + m.name + p.end)} ${this.value(m.node, true)} ${xgLiteral(p.close)}`;
      return m.required ? block : `(${block})?`;
    });
    // Pattern keys (patternProperties) are not written as parameters, as in the GBNF: fewer members, never an
    // invalid one. An extra parameter's name may repeat a listed one (never members too): the validator's.
    if (d.extra && !admitsNothing(d.extra)) {
      this.left("additionalProperties", d.path);
      if (avoidsAny(d.keyAvoid)) this.left("patternProperties", d.path);
      const key = this.rules.add("xg-param-name", "[^ \\t\\n<>=]+");
      parts.push(`(${xgLiteral(p.open)} ${key} ${xgLiteral(p.end)} ${this.value(d.extra, true)} ${xgLiteral(p.close)})*`);
    }
    return parts.length === 0 ? '""' : this.rules.add(`${d.hint}-params`, parts.join(" "));
  }

  private left(keyword: string, path: string): void {
    if (!this.leftToValidator.some((s) => s.keyword === keyword && s.path === path)) this.leftToValidator.push({ keyword, path });
  }

  private body(n: Node, raw: boolean): string {
    switch (n.k) {
      case "null":
        return raw ? this.rules.add("xg-null-raw", '"null" | "None"') : '"null"';
      case "boolean":
        return this.rules.add(raw ? "xg-boolean-raw" : "xg-boolean", raw ? '"true" | "false" | "True" | "False"' : '"true" | "false"');
      case "literal":
        return this.literals(n, raw);
      case "integer":
        return this.integer(n);
      case "number":
        return this.number(n);
      case "string":
        if (raw) return this.stringContent(n, true);
        return this.plain(n) ? this.plainString(n) : `"\\"" ${this.stringContent(n, false)} "\\""`;
      case "array":
        return this.array(n);
      case "object":
        return this.object(n);
      case "union":
        // Options that admit nothing (an enum its type filtered empty) are left out: EBNF has no empty alternative.
        return this.rules.add(n.hint, [...new Set(n.options.filter((o) => !admitsNothing(o)).map((o) => this.value(o, raw)))].join(" | "));
      case "ref":
        return this.json("any");
    }
  }

  private literals(n: Node & { k: "literal" }, raw: boolean): string {
    const python = new Map<unknown, string>([[true, "True"], [false, "False"], [null, "None"]]);
    const texts = n.values.flatMap((v) => {
      const text = raw && typeof v === "string" ? v : canonicalJson(v);
      return raw && python.has(v) ? [text, python.get(v)!] : [text];
    });
    const alts = [...new Set(texts)].map(xgLiteral);
    return alts.length === 1 ? alts[0]! : this.rules.add(n.hint, alts.join(" | "));
  }

  private integer(n: Node & { k: "integer" }): string {
    // The range without the step (a superset): the validator holds multipleOf.
    if (n.mult) this.left("multipleOf", n.path);
    if (n.lo === undefined && n.hi === undefined) return this.rules.add("xg-integer", '"-"? ("0" | [1-9] [0-9]*)');
    const rule = integerRule(n.lo, n.hi);
    if (!rule) return '""';
    // Digits past 15 are refused as in the GBNF (the same rule): canonical integers of JSON's safe range.
    return this.rules.add(`${n.hint}-int`, rule.expr);
  }

  private number(n: Node & { k: "number" }): string {
    // Any number (a superset): the validator holds "not an integer".
    if (n.fractional) this.left("not", n.path);
    if (n.lo === undefined && n.hi === undefined && n.frac === undefined) return this.rules.add("xg-number", '"-"? ("0" | [1-9] [0-9]*) ("." [0-9]+)?');
    const rule = numberRule(n.lo, n.hi, undefined, true, n.frac);
    return rule ? this.rules.add(`${n.hint}-num`, rule.expr) : '""';
  }

  /** A plain JSON string: minLength 1 as one required character; longer bounds are the validator's. */
  private plainString(n: Node & { k: "string" }): string {
    if (n.maxLength !== undefined || n.minLength > 1) this.left(n.maxLength !== undefined ? "maxLength" : "minLength", n.path);
    const rest = this.jsonStringRest();
    return n.minLength >= 1 ? `"\\"" ${this.jsonChar()} ${rest}` : `"\\"" ${rest}`;
  }

  /** One JSON string character (an escape counts as one). */
  private jsonChar(): string {
    this.jsonStringRest();
    return this.rules.add("xg-string-char", '[^"\\\\\\x00-\\x1f] | "\\\\" xg-escape');
  }

  /**
   * The rest of an extra key after its opening quote: printable ASCII but `"` and `\\` (no escapes), not empty, and
   * none of `names` (a trie over them, one rule per proper prefix), avoiding what `avoid` says (patternProperties:
   * a first character, or a character the key must hold outside a pattern's own). The GBNF's extra keys beside
   * patterns have this shape (less `<`, at most EXTRA_KEY_BYTES under the worst-case split; without patterns the
   * GBNF's keys are wider: these are a subset), and pattern-properties.ts relies on it: such a key matches every
   * pattern it calls universal (`.+`: not empty; `.`: no line terminator), so the value it plans for these keys
   * holds only for them.
   */
  private keyNotIn(names: readonly string[], hint: string, avoid?: KeyAvoid): string {
    const rest = this.keyRest();
    const first = avoid ? intersect(KEY_CHARS, complement(avoid.first)) : KEY_CHARS;
    const leave = avoid?.leave;
    const need = leave ? this.keyLeaving(leave) : "";
    const spellable = [...names, ...(avoid?.words ?? [])].filter((name) => name !== "" && inRanges(first, name.codePointAt(0)!) && [...name].every((c) => inRanges(KEY_CHARS, c.codePointAt(0)!)));
    // `gone`: a character outside `leave` was spelled already (always, when nothing must be left).
    const trie = (prefix: string, gone: boolean): string => {
      const next = new Set<number>();
      for (const name of spellable) if (name.length > prefix.length && name.startsWith(prefix)) next.add(name.charCodeAt(prefix.length));
      const others = (prefix === "" ? first : KEY_CHARS).flatMap((r) => minus(r, [...next]));
      const alts: string[] = [];
      if (prefix !== "" && !spellable.includes(prefix) && gone) alts.push('"\\""');
      const outside = gone || !leave ? others : intersect(others, complement(leave));
      const inside = gone || !leave ? [] : intersect(others, leave);
      if (outside.length > 0) alts.push(`${xgClass(outside)} ${rest}`);
      if (inside.length > 0) alts.push(`${xgClass(inside)} ${need}`);
      for (const c of next) alts.push(`${xgLiteral(String.fromCharCode(c))} ${trie(prefix + String.fromCharCode(c), gone || !inRanges(leave ?? [], c))}`);
      return this.rules.add(`${hint}-key${prefix.length}${gone ? "" : "-need"}`, alts.join(" | "));
    };
    return trie("", !leave);
  }

  /** Key characters until one outside `leave`, then the rest with the closing quote. */
  private keyLeaving(leave: readonly CodeRange[]): string {
    const inside = intersect(KEY_CHARS, leave);
    const outside = intersect(KEY_CHARS, complement(leave));
    const name = this.rules.reserve("xg-key-leave");
    this.rules.define(name, `${inside.length > 0 ? `${xgClass(inside)} ${name} | ` : ""}${xgClass(outside)} ${this.keyRest()}`);
    return name;
  }

  /** Key characters after the first, closing quote included (right-recursive, like xg-string-rest). */
  private keyRest(): string {
    if (!this.rules.has("xg-key-rest")) this.rules.addNamed("xg-key-rest", `"\\"" | ${xgClass(KEY_CHARS)} xg-key-rest`);
    return "xg-key-rest";
  }

  /** A string without format, pattern or character class: spelled by the shared right-recursive rule. */
  private plain(n: Node & { k: "string" }): boolean {
    return !n.format && !n.pattern && !n.chars;
  }

  /**
   * The rest of a plain JSON string after its opening quote, closing quote included: right-recursive, the shape of
   * xgrammar's own JSON-schema strings (a `(…)*` loop over the same alternatives had mask p99 of ~0.25 s here).
   */
  private jsonStringRest(): string {
    this.rules.has("xg-escape") || this.rules.addNamed("xg-escape", ESCAPE.slice("xg-escape ::= ".length));
    if (!this.rules.has("xg-string-rest")) this.rules.addNamed("xg-string-rest", '"\\"" | [^"\\\\\\x00-\\x1f] xg-string-rest | "\\\\" xg-escape xg-string-rest');
    return "xg-string-rest";
  }

  /** JSON string content (between the quotes), escapes included for plain text. */
  private stringContent(n: Node & { k: "string" }, raw: boolean): string {
    if (n.format) return formatRule(this.rules, n.format);
    if (n.pattern) return this.pattern(n.pattern, n, raw);
    if (n.chars) return this.repeat(xgClass(escapedOut(n.chars.ranges, raw)), n.chars.min, n.chars.max, n);
    if (n.minLength > 0 || n.maxLength !== undefined) this.left(n.maxLength !== undefined ? "maxLength" : "minLength", n.path);
    if (raw) return this.rawText();
    internal("a plain JSON string is printed by jsonStringRest");
  }

  /** Raw text of a qwen3coder value: anything but the start of a closing tag (a subset: no `</` inside). */
  private rawText(): string {
    if (!this.rules.has("xg-raw-text")) this.rules.addNamed("xg-raw-text", '"" | [^<] xg-raw-text | "<" [^/] xg-raw-text');
    return "xg-raw-text";
  }

  /** `X{min,max}`, unrolled when small; larger counts are left to the validator. */
  private repeat(x: string, min: number, max: number | undefined, n: Node): string {
    if (min <= 1 && max === undefined) return `${x}${min === 0 ? "*" : "+"}`;
    if (min === 0 && max === 1) return `${x}?`;
    if (max !== undefined && max <= XG_MAX_UNROLL) return `${x}{${min},${max}}`;
    this.left(max === undefined ? "minLength" : "maxLength", n.path);
    return min === 0 ? `${x}*` : `${x}+`;
  }

  private pattern(p: ParsedPattern, n: Node & { k: "string" }, raw: boolean): string {
    if (n.minLength > 0 || n.maxLength !== undefined) this.left(n.maxLength !== undefined ? "maxLength" : "minLength", n.path);
    const any = () => `${xgClass(escapedOut([[0, 0x10ffff]], raw))}*`;
    const branches = p.branches.map((b) => [b.start ? "" : any(), this.re(b.re, raw, n), b.end ? "" : any()].filter((s) => s !== "").join(" ") || '""');
    return this.rules.add(`${n.hint}-pattern`, branches.join(" | "));
  }

  private re(r: Re, raw: boolean, n: Node): string {
    switch (r.t) {
      case "set":
        return xgClass(escapedOut(r.ranges, raw));
      case "seq":
        return r.items.length === 0 ? '""' : `(${r.items.map((x) => this.re(x, raw, n)).join(" ")})`;
      case "alt":
        return `(${r.items.map((x) => this.re(x, raw, n)).join(" | ")})`;
      case "rep":
        return this.repeat(`(${this.re(r.item, raw, n)})`, r.min, r.max, n);
    }
  }

  private array(n: Node & { k: "array" }): string {
    // xgrammar admits repeated items: distinct ones are the runtime's guard's or the validator's to hold.
    if (n.unique) this.left("uniqueItems", n.path);
    const each = n.items && !admitsNothing(n.items) ? this.value(n.items) : undefined;
    const extraMin = Math.max(0, n.minItems - n.prefix.length);
    const extraMax = n.maxItems === undefined ? undefined : Math.max(0, n.maxItems - n.prefix.length);
    let tail: Part | undefined;
    if (each && extraMax !== 0) {
      if (extraMax !== undefined && extraMax <= XG_MAX_UNROLL) tail = unrolled(each, extraMin, extraMax);
      else {
        if (extraMin > 1 || extraMax !== undefined) this.left(extraMax !== undefined ? "maxItems" : "minItems", n.path);
        tail = { expr: `${each} (", " ${each})*`, optional: extraMin === 0 };
      }
    }
    // Prefix items in order; past minItems each may end the array (JSON Schema's prefixItems).
    for (let i = n.prefix.length - 1; i >= 0; i--) tail = { expr: `${this.value(n.prefix[i]!)}${then(tail)}`, optional: i >= n.minItems };
    const inner = tail ? (tail.optional ? `(${tail.expr})?` : tail.expr) : '""';
    return this.rules.add(`${n.hint}-array`, `"[" ${inner} "]"`);
  }

  private object(n: Node & { k: "object" }): string {
    if (n.nonEmpty || n.minExtra) this.left("minProperties", n.path);
    if (n.maxExtra !== undefined) this.left("maxProperties", n.path);
    // Every listed name, never members included: no extra key may spell one (`"a": false` forbids "a").
    const names = n.props.map((p) => p.name);
    // Optional members no value satisfies are never written (the GBNF drops them too); required ones were refused.
    n = { ...n, props: n.props.filter((p) => p.required || !admitsNothing(p.node)) };
    const member = (i: number) => `${xgLiteral(jsonString(n.props[i]!.name) + ": ")} ${this.value(n.props[i]!.node)}`;
    const extra = this.extraMember(n, names);
    // rest(i, first): members i.. in schema order, optional ones left out or not, `, ` before all but the first.
    const made = new Map<string, string>();
    const rest = (i: number, first: boolean): string => {
      const sep = first ? "" : '", " ';
      if (i === n.props.length) return extra ? `(${sep}${extra} (", " ${extra})*)?` : '""';
      const key = `${i}:${first}`;
      const known = made.get(key);
      if (known) return known;
      const take = `${sep}${member(i)} ${rest(i + 1, false)}`;
      const name = this.rules.add(`${n.hint}-m${i}${first ? "f" : ""}`, n.props[i]!.required ? take : `${take} | ${rest(i + 1, first)}`);
      made.set(key, name);
      return name;
    };
    return this.rules.add(`${n.hint}-object`, `"{" ${rest(0, true)} "}"`);
  }

  /**
   * One extra member, as the GBNF writes them (schema-emit.ts jsonExtra): a key the extra-key rule spells with the
   * `extra` value, or a key of one pattern (patternProperties) with that pattern's value. Undefined: none.
   */
  private extraMember(n: Node & { k: "object" }, names: readonly string[]): string | undefined {
    const alts: string[] = [];
    if (n.extra && !admitsNothing(n.extra)) alts.push(`"\\"" ${this.keyNotIn(names, n.hint, n.keyAvoid)} ": " ${this.value(n.extra)}`);
    for (const x of n.patternKeys ?? []) {
      if (admitsNothing(x.key) || admitsNothing(x.value)) continue;
      alts.push(`${this.value(x.key)} ": " ${this.value(x.value)}`);
    }
    if (alts.length <= 1) return alts[0];
    return this.rules.add(`${n.hint}-member`, alts.join(" | "));
  }

  private json(kind: "any"): string {
    if (this.rules.has(`xg-${kind}`)) return `xg-${kind}`;
    const s = this.rules.add("xg-any-string", `"\\"" ${this.jsonStringRest()}`);
    const any = this.rules.reserve(`xg-${kind}`);
    const arr = `"[" (${any} (", " ${any})*)? "]"`;
    const obj = `"{" (${s} ": " ${any} (", " ${s} ": " ${any})*)? "}"`;
    this.rules.define(any, `"null" | "true" | "false" | ${this.number({ k: "number", id: -1, path: "", hint: "any" })} | ${s} | ${arr} | ${obj}`);
    return any;
  }
}

/** A sequence part: its expression, and whether the whole part may be left out. */
interface Part {
  expr: string;
  optional: boolean;
}

/** `, ` and the rest after an item: optional when the rest is. */
function then(rest: Part | undefined): string {
  if (!rest) return "";
  return rest.optional ? ` (", " ${rest.expr})?` : ` ", " ${rest.expr}`;
}

/** `item (, item){min-1..max-1}` as nested optionals (max ≤ XG_MAX_UNROLL). */
function unrolled(item: string, min: number, max: number): Part {
  let rest: Part | undefined;
  for (let k = max; k >= 1; k--) rest = { expr: `${item}${then(rest)}`, optional: k > min };
  return rest!;
}

/** A value tree that admits no value: an enum filtered empty, a union of such (refs followed a few levels). */
export function admitsNothing(n: Node, depth = 0): boolean {
  const d = deref(n);
  if (depth > 16) return false;
  if (d.k === "literal") return d.values.length === 0;
  if (d.k === "union") return d.options.every((o) => admitsNothing(o, depth + 1));
  if (d.k === "object") return d.props.some((p) => p.required && admitsNothing(p.node, depth + 1));
  return false;
}

/** Characters of an extra JSON key: printable ASCII but `"` and `\\` (JSON writes those escaped). */
const KEY_CHARS: readonly CodeRange[] = [
  [0x20, 0x21],
  [0x23, 0x5b],
  [0x5d, 0x7e],
];

/** A range without some code points. */
function minus(range: CodeRange, points: readonly number[]): CodeRange[] {
  let out: CodeRange[] = [range];
  for (const p of points) out = out.flatMap(([lo, hi]) => (p < lo || p > hi ? [[lo, hi] as CodeRange] : ([[lo, p - 1], [p + 1, hi]] as CodeRange[]).filter(([a, b]) => a <= b)));
  return out;
}

/** A JSON string's characters: a class minus what JSON must escape (raw text keeps everything but `<`). */
function escapedOut(ranges: readonly CodeRange[], raw: boolean): CodeRange[] {
  const out: CodeRange[] = [];
  const holes: CodeRange[] = raw ? [[0x3c, 0x3c]] : [[0, 0x1f], [0x22, 0x22], [0x5c, 0x5c]];
  for (const [lo, hi] of normalizeRanges(ranges)) {
    let from = lo;
    for (const [hl, hh] of holes) {
      if (hh < from || hl > hi) continue;
      if (hl > from) out.push([from, hl - 1]);
      from = hh + 1;
    }
    if (from <= hi) out.push([from, hi]);
  }
  return out;
}
