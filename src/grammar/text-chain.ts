// Owns: bounded text inside a grammar: JSON string content and raw text (qwen3coder values, free text), as
// chains of rules that count what is left (UTF-8 bytes or code points), and that can never spell a tag prefix.
//
// Chain `jbK` matches JSON string content of at most K bytes (`rbK`: raw text; `jcN`/`rcN`: at most N code
// points). The names are short because a chain has two rules per unit of its bound:
//   jbK  ::= "" | j1 jb(K-1) | j2 jb(K-2) | j3 jb(K-3) | j4 jb(K-4) | "<" jbl(K-1)
//   jblK ::= "" | jfinal | jexit1 jb(K-D-1) | … | jexit4 jb(K-D-4) | jstay jbl(K-S)
// `jN` are the characters of N UTF-8 bytes other than `<` (j2 includes the JSON escapes). After a `<` (state
// `jbl`) the text may not continue into a banned prefix such as `</too`: `jexitN`, `jstay` and `jfinal` walk the
// prefix trie and are charged their worst cost (D, the trie's depth, for the prefix; N for the character that leaves
// it; S), so a `<` costs a few bytes more than it spends. Every rule consumes what it charges or less, so a chain of
// K bytes never spells more than K bytes. An exit is charged by its character's width, as the main chain charges a
// character. A single exit charged for the widest character made the first character after a `<` one step while
// the rest of the chain counted bytes; the engine's text masks count a chain in one unit, so they walked every
// token there instead (190 ms for one mask on Qwen3's vocabulary).

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

/** Any character: what may not follow a `<` when a prefix bans `<` alone. */
const EVERY_CHARACTER: CodeRange[] = [[0, 0x10ffff]];

/**
 * The characters that may not come right after a `<` in text of a format with these banned prefixes: the second
 * character of each. A `<` followed by none of them begins no tag.
 */
export function tagStarts(banned: readonly string[]): CodeRange[] {
  if (banned.some((b) => b === "<")) return EVERY_CHARACTER;
  const cps = [...new Set(banned.filter((b) => b.startsWith("<")).map((b) => b.codePointAt(1)!))].sort((a, b) => a - b);
  return toRanges(cps);
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
  /** The exits from the tag prefixes by the width of the character that leaves them (1 to 4 bytes), as rule bodies. */
  private exitsByWidth: string[] = [];

  constructor(
    private readonly rules: RuleSet,
    private readonly charset: Charset,
    banned: readonly string[],
  ) {
    this.prefix = charset === "json" ? "j" : "r";
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
    this.bytesMax = Math.max(this.bytesMax, k);
    return this.bytesName(k, false);
  }

  /** Rule for text of at most `n` code points (each at most 4 bytes). */
  codePoints(n: number): string {
    this.makeUnits();
    this.cpsMax = Math.max(this.cpsMax, n);
    return this.cpsName(n, false);
  }

  /**
   * Rule for text of any length (no count: the budget split "shared" leaves an unbounded string to the caller's
   * guard), with the same ban on tag prefixes as the counted chains. Two rules instead of two per byte.
   */
  unbounded(): string {
    this.makeUnits();
    const p = this.prefix;
    if (!this.rules.has(`${p}free`)) {
      const { finalBytes: fb } = this.lt;
      this.rules.addNamed(`${p}free`, `"" | ${p}1 ${p}free | ${p}2 ${p}free | ${p}3 ${p}free | ${p}4 ${p}free | "<" ${p}freel`);
      this.rules.addNamed(`${p}freel`, `""${fb > 0 ? ` | ${p}final` : ""} | ${p}exit ${p}free | ${p}stay ${p}freel`);
    }
    return `${p}free`;
  }

  /** One character that returns to the normal state: any character, or `<` with a safe continuation. */
  requiredUnit(): string {
    this.makeUnits();
    return `${this.prefix}unit`;
  }

  /** One character other than `<` (1 code point, at most 4 bytes). */
  plainChar(): string {
    this.makeUnits();
    return `${this.prefix}char`;
  }

  /** One ASCII character other than `<` (1 byte; for JSON also not `"` or `\`). */
  asciiChar(): string {
    this.makeUnits();
    return `${this.prefix}1`;
  }

  private bytesName(k: number, lt: boolean): string {
    return `${this.prefix}b${lt ? "l" : ""}${k}`;
  }

  private cpsName(n: number, lt: boolean): string {
    return `${this.prefix}c${lt ? "l" : ""}${n}`;
  }

  /** The chain rules up to the largest bound asked for (printed last), one string of whole lines. */
  private renderChains(): string {
    const p = this.prefix;
    const { stayBytes: sb, finalBytes: fb, exitCps: ec, stayCps: sc, finalCps: fc } = this.lt;
    let lines = "";
    // The exits by width only where a byte chain charges them (the code-point chains charge one for any exit).
    if (this.bytesMax >= 0) this.exitsByWidth.forEach((body, w) => (lines += `${p}exit${w + 1} ::= ${body}\n`));
    for (let k = 0; k <= this.bytesMax; k++) {
      let main = `${p}b${k} ::= ""`;
      for (let n = 1; n <= 4 && n <= k; n++) main += ` | ${p}${n} ${p}b${k - n}`;
      if (k >= 1) main += ` | "<" ${p}bl${k - 1}`;
      let lt = `${p}bl${k} ::= ""`;
      if (fb > 0 && k >= fb) lt += ` | ${p}final`;
      for (let n = 1; n <= 4 && k >= fb + n; n++) lt += ` | ${p}exit${n} ${p}b${k - fb - n}`;
      if (k >= sb) lt += ` | ${p}stay ${p}bl${k - sb}`;
      lines += `${main}\n${lt}\n`;
    }
    for (let n = 0; n <= this.cpsMax; n++) {
      let main = `${p}c${n} ::= ""`;
      if (n >= 1) main += ` | ${p}char ${p}c${n - 1} | "<" ${p}cl${n - 1}`;
      let lt = `${p}cl${n} ::= ""`;
      if (fc > 0 && n >= fc) lt += ` | ${p}final`;
      if (n >= ec) lt += ` | ${p}exit ${p}c${n - ec}`;
      if (n >= sc) lt += ` | ${p}stay ${p}cl${n - sc}`;
      lines += `${main}\n${lt}\n`;
    }
    return lines;
  }

  private makeUnits(): void {
    if (this.unitsMade) return;
    this.unitsMade = true;
    const p = this.prefix;
    const r = this.rules;
    r.defer(() => ({ text: this.renderChains(), rules: 2 * (this.bytesMax + 1) + 2 * (this.cpsMax + 1) + (this.bytesMax >= 0 ? 4 : 0) }));
    r.addNamed(`${p}1`, charClass(oneByteRanges(this.charset, new Set())));
    const c2 = charClass([[0x80, 0x7ff]]);
    r.addNamed(`${p}2`, this.charset === "json" ? `${c2} | "\\\\" ["\\\\bfnrt]` : c2);
    r.addNamed(`${p}3`, charClass(SURROGATE_FREE_3));
    r.addNamed(`${p}4`, charClass([[0x10000, 0x10ffff]]));
    r.addNamed(`${p}char`, `${p}1 | ${p}2 | ${p}3 | ${p}4`);
    const exits: string[] = [];
    /** Per width of the character that leaves the prefix (1 to 4 bytes), the exits it ends. */
    const exitsBy: string[][] = [[], [], [], []];
    const stays: string[] = [];
    const finals: string[] = [];
    for (const [node, children] of [...this.trie.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const exclude = new Set([...children].map((c) => c.codePointAt(0)!));
      const first = charClass(oneByteRanges(this.charset, exclude));
      const after = (unit: string) => (node === "" ? unit : `${literal(node)} ${unit}`);
      exits.push(after(`(${first} | ${p}2 | ${p}3 | ${p}4)`));
      [first, `${p}2`, `${p}3`, `${p}4`].forEach((unit, w) => exitsBy[w]!.push(after(unit)));
      stays.push(literal(node + "<"));
      if (node !== "") finals.push(literal(node));
    }
    r.addNamed(`${p}exit`, exits.join(" | "));
    this.exitsByWidth = exitsBy.map((list) => list.join(" | "));
    r.addNamed(`${p}stay`, stays.join(" | "));
    if (finals.length > 0) r.addNamed(`${p}final`, finals.join(" | "));
    r.addNamed(`${p}unit`, `${p}char | "<" ${p}exit`);
  }
}
