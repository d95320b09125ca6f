// Owns: a pattern without a few words, written as a pattern again (the keys of patternProperties beside listed
// names the pattern also matches, under additionalProperties false: the pattern's keys must never spell a listed
// name). Built from the pattern's derivatives along the words' trie; kept only when proven to hold exactly the
// pattern's strings but the words.

import { boundedPattern } from "./schema-bounds.js";
import { complement, intersect, normalizeRanges, type ParsedPattern, type Re } from "./regex.js";
import { alt, ANY, derive, EPS, firsts, nullable, seq, source } from "./regex-derive.js";
import type { CodeRange } from "./gbnf.js";
import { languageHolds, languageIncluded, languageNfa } from "./regex-overlap.js";

/** Most nodes the pattern without the words may have (it grows with the words' letters). */
const MAX_NODES = 4_000;

class TooLarge extends Error {}

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
