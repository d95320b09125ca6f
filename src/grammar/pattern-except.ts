// Owns: a pattern without a few words, written as a pattern again (the keys of patternProperties beside listed
// names the pattern also matches, under additionalProperties false: the pattern's keys must never spell a listed
// name). Built from the pattern's derivatives along the words' trie; kept only when proven to hold exactly the
// pattern's strings but the words.

import { boundedPattern } from "./schema-bounds.js";
import { complement, inRanges, intersect, normalizeRanges, type ParsedPattern, type Re } from "./regex.js";
import type { CodeRange } from "./gbnf.js";
import { languageHolds, languageIncluded, languageNfa } from "./regex-overlap.js";

/** Most nodes the pattern without the words may have (it grows with the words' letters). */
const MAX_NODES = 4_000;

const EPS: Re = { t: "seq", items: [] };
const ANY: Re = { t: "rep", item: { t: "set", ranges: [[0, 0x10ffff]] }, min: 0, max: undefined };

class TooLarge extends Error {}

function nullable(re: Re): boolean {
  switch (re.t) {
    case "set":
      return false;
    case "seq":
      return re.items.every(nullable);
    case "alt":
      return re.items.some(nullable);
    case "rep":
      return re.min === 0 || nullable(re.item);
  }
}

const seq = (items: Re[]): Re => {
  const flat = items.flatMap((i) => (i.t === "seq" ? i.items : [i]));
  return flat.length === 1 ? flat[0]! : { t: "seq", items: flat };
};

/** One alternative per distinct expression (an alternation of copies would spell one text many ways). */
function alt(items: Re[]): Re | null {
  const seen = new Map<string, Re>();
  for (const i of items.flatMap((i) => (i.t === "alt" ? i.items : [i]))) seen.set(JSON.stringify(i), i);
  const out = [...seen.values()];
  return out.length === 0 ? null : out.length === 1 ? out[0]! : { t: "alt", items: out };
}

/** The strings `re` holds after code point `cp`: { v | cp v ∈ re } (null: none). */
function derive(re: Re, cp: number): Re | null {
  switch (re.t) {
    case "set":
      return inRanges(re.ranges, cp) ? EPS : null;
    case "seq": {
      if (re.items.length === 0) return null;
      const [head, ...rest] = re.items as [Re, ...Re[]];
      const first = derive(head, cp);
      const options = first ? [seq([first, ...rest])] : [];
      if (nullable(head)) {
        const later = derive(seq(rest), cp);
        if (later) options.push(later);
      }
      return alt(options);
    }
    case "alt":
      return alt(re.items.map((i) => derive(i, cp)).filter((d): d is Re => d !== null));
    case "rep": {
      if (re.max === 0) return null;
      const d = derive(re.item, cp);
      if (!d) return null;
      // x{m,n} with x able to be empty holds what x{0,n} holds.
      const min = nullable(re.item) ? 0 : Math.max(re.min - 1, 0);
      return seq([d, { t: "rep", item: re.item, min, max: re.max === undefined ? undefined : re.max - 1 }]);
    }
  }
}

/** The classes `derive` consults for the first code point. */
function firsts(re: Re): CodeRange[][] {
  switch (re.t) {
    case "set":
      return [re.ranges];
    case "seq": {
      const out: CodeRange[][] = [];
      for (const i of re.items) {
        out.push(...firsts(i));
        if (!nullable(i)) break;
      }
      return out;
    }
    case "alt":
      return re.items.flatMap(firsts);
    case "rep":
      return re.max === 0 ? [] : firsts(re.item);
  }
}

/** `within` cut into classes each inside or outside every one of `sets`. */
function atoms(within: CodeRange[], sets: CodeRange[][]): CodeRange[][] {
  let parts = within.length > 0 ? [within] : [];
  for (const s of sets) parts = parts.flatMap((p) => [intersect(p, s), intersect(p, complement(s))]).filter((p) => p.length > 0);
  return parts;
}

interface Trie {
  end: boolean;
  next: Map<number, Trie>;
}

/** `re` (the strings after the trie's path so far) without the words below `node`. */
function without(re: Re, node: Trie, size: { n: number }): Re | null {
  if (++size.n > MAX_NODES) throw new TooLarge();
  const options: Re[] = [];
  if (!node.end && nullable(re)) options.push(EPS);
  for (const [cp, child] of node.next) {
    const d = derive(re, cp);
    const rest = d && without(d, child, size);
    if (rest) options.push(seq([{ t: "set", ranges: [[cp, cp]] }, rest]));
  }
  const off = complement(normalizeRanges([...node.next.keys()].map((cp): CodeRange => [cp, cp])));
  for (const a of atoms(intersect(off, normalizeRanges(firsts(re).flat())), firsts(re))) {
    const d = derive(re, a[0]![0]);
    if (d) options.push(seq([{ t: "set", ranges: a }, d]));
  }
  return alt(options);
}

const cpText = (cp: number) => `\\u{${cp.toString(16)}}`;

/** `re` as pattern source the parser reads back. */
function source(re: Re): string {
  switch (re.t) {
    case "set":
      return `[${re.ranges.map(([lo, hi]) => (lo === hi ? cpText(lo) : `${cpText(lo)}-${cpText(hi)}`)).join("")}]`;
    case "seq":
      return re.items.map((i) => (i.t === "alt" ? `(?:${source(i)})` : source(i))).join("");
    case "alt":
      return re.items.map(source).join("|");
    case "rep":
      return `(?:${source(re.item)}){${re.min},${re.max ?? ""}}`;
  }
}

const nfa = (p: ParsedPattern) => languageNfa({ t: "pattern", pattern: p });

/**
 * `pattern` without `words` (each of which it matches), as pattern source; null when no other string is left;
 * undefined when not written or not proven.
 */
export function patternWithout(pattern: string, words: readonly string[]): string | null | undefined {
  const parsed = boundedPattern(pattern);
  if (!parsed.ok) return undefined;
  const whole = alt(parsed.value.branches.map((b) => seq([...(b.start ? [] : [ANY]), b.re, ...(b.end ? [] : [ANY])])));
  if (!whole) return undefined;
  const root: Trie = { end: false, next: new Map() };
  for (const w of words) {
    let at = root;
    for (const ch of w) {
      const cp = ch.codePointAt(0)!;
      if (!at.next.has(cp)) at.next.set(cp, { end: false, next: new Map() });
      at = at.next.get(cp)!;
    }
    at.end = true;
  }
  let rest: Re | null;
  try {
    rest = without(whole, root, { n: 0 });
  } catch (e) {
    if (e instanceof TooLarge) return undefined;
    throw e;
  }
  if (!rest) return null;
  const text = `^(?:${source(rest)})$`;
  const made = boundedPattern(text);
  if (!made.ok) return undefined;
  // Proof: inside the pattern, no word, and with the words the whole pattern.
  const wordBranches = words.map((w) => ({ re: seq([...w].map((ch): Re => ({ t: "set", ranges: [[ch.codePointAt(0)!, ch.codePointAt(0)!]] }))), start: true, end: true }));
  const [m, p, mw] = [nfa(made.value), nfa(parsed.value), nfa({ branches: [...made.value.branches, ...wordBranches] })];
  if (!m || !p || !mw) return undefined;
  if (!languageIncluded(m, p) || words.some((w) => languageHolds(m, w)) || !languageIncluded(p, mw)) return undefined;
  return text;
}
