// Owns: bounded text inside a grammar: JSON string content and raw text (qwen3coder values, free text), as
// chains of rules that count what is left (UTF-8 bytes or code points), and that can never spell a tag prefix.
//
// Chain `str-max-Kb` matches JSON string content of at most K bytes:
//   str-max-Kb    ::= "" | str-c1 str-max-(K-1)b | str-c2 str-max-(K-2)b | str-c3 … | str-c4 … | "<" str-lt-max-(K-1)b
//   str-lt-max-Kb ::= "" | str-lt-final | str-lt-exit str-max-(K-E)b | str-lt-stay str-lt-max-(K-S)b
// `str-cN` are the characters of N UTF-8 bytes other than `<` (N = 2 includes the JSON escapes). After a `<`
// the text may not continue into a banned prefix such as `</too`; the `lt` units walk the prefix trie and are
// charged their worst cost (E, S), so `<` costs a few bytes more than it spends. Every rule consumes what it
// charges or less, so a chain of K bytes never produces more than K bytes.

import { type CodeRange, charClass, literal, type RuleSet } from "./gbnf.js";

export type Charset = "json" | "raw";

/** How many letters of a tag name (after `<` or `</`) a text may never spell. */
export const TAG_PREFIX_LETTERS = 3;

/** The prefixes bounded text may not contain: `<` (or `</`) plus the first letters of each tag name. */
export function bannedPrefixes(tags: readonly string[]): string[] {
  const out = new Set<string>();
  for (const tag of tags) {
    if (!tag.startsWith("<")) continue;
    const head = tag.startsWith("</") ? 2 : 1;
    const name = tag.slice(head).replace(/[^A-Za-z0-9_]/g, "");
    out.add(tag.slice(0, head) + name.slice(0, TAG_PREFIX_LETTERS));
  }
  const list = [...out].sort();
  return list.filter((p) => !list.some((q) => q !== p && p.startsWith(q)));
}

const SURROGATE_FREE_3: CodeRange[] = [
  [0x800, 0xd7ff],
  [0xe000, 0xffff],
];

/** The 1-byte characters of a charset other than `<` (and other than `exclude`). */
function oneByteRanges(charset: Charset, exclude: ReadonlySet<number>): CodeRange[] {
  const cps: number[] = [];
  if (charset === "raw") cps.push(0x09, 0x0a, 0x0d);
  for (let c = 0x20; c <= 0x7f; c++) {
    if (c === 0x3c) continue; // `<` is handled by the lt units
    if (charset === "json" && (c === 0x22 || c === 0x5c)) continue; // `"` and `\` only escaped
    cps.push(c);
  }
  return toRanges(cps.filter((c) => !exclude.has(c)));
}

function toRanges(sorted: readonly number[]): CodeRange[] {
  const out: [number, number][] = [];
  for (const c of sorted) {
    const last = out[out.length - 1];
    if (last && last[1] === c - 1) last[1] = c;
    else out.push([c, c]);
  }
  return out;
}

/** Worst costs of the units that follow a `<` (see the file comment). */
export interface LtCosts {
  exitBytes: number;
  stayBytes: number;
  finalBytes: number;
  exitCps: number;
  stayCps: number;
  finalCps: number;
}

/**
 * Bounded text of one charset in one grammar. Creates its rules on first use, in the RuleSet it was given.
 */
export class TextChains {
  readonly lt: LtCosts;
  /** Worst bytes of one "required unit" (a character, or `<` with what must follow it). */
  readonly requiredUnitBytes: number;
  private readonly prefix: string;
  private readonly trie: Map<string, Set<string>>;
  private bytesMax = -1;
  private cpsMax = -1;
  private unitsMade = false;

  constructor(
    private readonly rules: RuleSet,
    private readonly charset: Charset,
    banned: readonly string[],
  ) {
    this.prefix = charset === "json" ? "str" : "raw";
    // Trie of what may follow `<`: node = path after `<`, children = next characters.
    const suffixes = banned.filter((b) => b.startsWith("<")).map((b) => b.slice(1));
    this.trie = new Map([["", new Set()]]);
    for (const s of suffixes) {
      for (let i = 0; i < s.length; i++) {
        const node = s.slice(0, i);
        if (!this.trie.has(node)) this.trie.set(node, new Set());
        this.trie.get(node)!.add(s[i]!);
      }
    }
    for (const s of suffixes) this.trie.delete(s);
    const depth = Math.max(0, ...[...this.trie.keys()].map((k) => k.length));
    const escapeBytes = charset === "json" ? 2 : 1;
    this.lt = {
      exitBytes: depth + Math.max(4, escapeBytes),
      stayBytes: depth + 1,
      finalBytes: depth,
      exitCps: depth + 1,
      stayCps: depth + 1,
      finalCps: depth,
    };
    this.requiredUnitBytes = Math.max(4, 1 + this.lt.exitBytes);
  }

  /** Rule for text of at most `k` bytes. */
  bytes(k: number): string {
    this.makeUnits();
    for (let i = this.bytesMax + 1; i <= k; i++) this.addBytesRules(i);
    this.bytesMax = Math.max(this.bytesMax, k);
    return this.bytesName(k, false);
  }

  /** Rule for text of at most `n` code points (each at most 4 bytes). */
  codePoints(n: number): string {
    this.makeUnits();
    for (let i = this.cpsMax + 1; i <= n; i++) this.addCpsRules(i);
    this.cpsMax = Math.max(this.cpsMax, n);
    return this.cpsName(n, false);
  }

  /** One character that returns to the normal state: any character, or `<` with a safe continuation. */
  requiredUnit(): string {
    this.makeUnits();
    return `${this.prefix}-unit`;
  }

  /** One character other than `<` (1 code point, at most 4 bytes). */
  plainChar(): string {
    this.makeUnits();
    return `${this.prefix}-char`;
  }

  /** One ASCII character other than `<` (1 byte; for JSON also not `"` or `\`). */
  asciiChar(): string {
    this.makeUnits();
    return `${this.prefix}-c1`;
  }

  private bytesName(k: number, lt: boolean): string {
    return `${this.prefix}${lt ? "-lt" : ""}-max-${k}b`;
  }

  private cpsName(n: number, lt: boolean): string {
    return `${this.prefix}${lt ? "-lt" : ""}-max-${n}cp`;
  }

  private addBytesRules(k: number): void {
    const p = this.prefix;
    const alts = ['""'];
    for (let n = 1; n <= 4; n++) if (k >= n) alts.push(`${p}-c${n} ${this.bytesName(k - n, false)}`);
    if (k >= 1) alts.push(`"<" ${this.bytesName(k - 1, true)}`);
    this.rules.addNamed(this.bytesName(k, false), alts.join(" | "));
    const lt = ['""'];
    if (k >= this.lt.finalBytes && this.lt.finalBytes > 0) lt.push(`${p}-lt-final`);
    if (k >= this.lt.exitBytes) lt.push(`${p}-lt-exit ${this.bytesName(k - this.lt.exitBytes, false)}`);
    if (k >= this.lt.stayBytes) lt.push(`${p}-lt-stay ${this.bytesName(k - this.lt.stayBytes, true)}`);
    this.rules.addNamed(this.bytesName(k, true), lt.join(" | "));
  }

  private addCpsRules(n: number): void {
    const p = this.prefix;
    const alts = ['""'];
    if (n >= 1) alts.push(`${p}-char ${this.cpsName(n - 1, false)}`, `"<" ${this.cpsName(n - 1, true)}`);
    this.rules.addNamed(this.cpsName(n, false), alts.join(" | "));
    const lt = ['""'];
    if (n >= this.lt.finalCps && this.lt.finalCps > 0) lt.push(`${p}-lt-final`);
    if (n >= this.lt.exitCps) lt.push(`${p}-lt-exit ${this.cpsName(n - this.lt.exitCps, false)}`);
    if (n >= this.lt.stayCps) lt.push(`${p}-lt-stay ${this.cpsName(n - this.lt.stayCps, true)}`);
    this.rules.addNamed(this.cpsName(n, true), lt.join(" | "));
  }

  private makeUnits(): void {
    if (this.unitsMade) return;
    this.unitsMade = true;
    const p = this.prefix;
    const r = this.rules;
    r.addNamed(`${p}-c1`, charClass(oneByteRanges(this.charset, new Set())));
    const c2 = charClass([[0x80, 0x7ff]]);
    r.addNamed(`${p}-c2`, this.charset === "json" ? `${c2} | "\\\\" ["\\\\bfnrt]` : c2);
    r.addNamed(`${p}-c3`, charClass(SURROGATE_FREE_3));
    r.addNamed(`${p}-c4`, charClass([[0x10000, 0x10ffff]]));
    r.addNamed(`${p}-char`, `${p}-c1 | ${p}-c2 | ${p}-c3 | ${p}-c4`);
    const exits: string[] = [];
    const stays: string[] = [];
    const finals: string[] = [];
    for (const [node, children] of [...this.trie.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const exclude = new Set([...children].map((c) => c.codePointAt(0)!));
      const first = charClass(oneByteRanges(this.charset, exclude));
      const anyExit = `(${first} | ${p}-c2 | ${p}-c3 | ${p}-c4)`;
      exits.push(node === "" ? anyExit : `${literal(node)} ${anyExit}`);
      stays.push(literal(node + "<"));
      if (node !== "") finals.push(literal(node));
    }
    r.addNamed(`${p}-lt-exit`, exits.join(" | "));
    r.addNamed(`${p}-lt-stay`, stays.join(" | "));
    if (finals.length > 0) r.addNamed(`${p}-lt-final`, finals.join(" | "));
    r.addNamed(`${p}-unit`, `${p}-char | "<" ${p}-lt-exit`);
  }
}
