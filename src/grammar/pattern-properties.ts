// Owns: the plan for `patternProperties`: which schemas each listed member must also satisfy, the value each
// pattern's keys get, and the value of keys the extra-key rule spells — all as plain schemas for the lowerer.
//
// The grammar cannot spell "a key that matches none of these patterns" in general (no regex complement), so the
// plan is a subset where it must be, never a superset. Where every pattern but the universal ones (`.*`) can be
// avoided by a key's first character (`^/`) or by a character it never spells (`^[a-z0-9]+$`), the extra-key rule
// spells only keys that avoid them, and their value is additionalProperties (or the universal patterns' schemas):
// exact. Otherwise a key the extra-key rule spells may match any pattern, so its value satisfies
// `additionalProperties` and every pattern's schema at once. A pattern key that may match another pattern
// satisfies both schemas.

import { type QtcError } from "../errors.js";
import { linearRegExp } from "../tools/linear-regexp.js";
import { type KeyAvoid, KEY_CHARS } from "./extra-key.js";
import type { CodeRange } from "./gbnf.js";
import { disjointByFirst, patternAlphabet, patternFirst, patternWords } from "./regex-first.js";
import { complement, intersect, normalizeRanges } from "./regex.js";
import { pointer, unsupported } from "./schema-keywords.js";
import { patternWithout } from "./pattern-except.js";
import { languagesDisjoint, type Nfa, patternNfa } from "./regex-overlap.js";

/** Patterns that match every key the extra-key rule spells (printable ASCII, no newline, not empty). */
const UNIVERSAL = new Set(["", ".*", "^.*$", ".+", "^.+$", "^.*", ".*$", "^.+", ".+$", "(.*)", "^(.*)$", "^(.+)$", "[\\s\\S]*", "^[\\s\\S]*$"]);

export interface PatternPlan {
  /** For each listed member whose name matches patterns: the schemas it must also satisfy. */
  listed: Map<string, unknown[]>;
  /** Extra members keyed by a pattern: the key's string schema and the value's schema. */
  keyed: { pattern: string; key: unknown; value: unknown }[];
  /** The value of a key the extra-key rule spells (undefined: no such key). */
  spelled: unknown | undefined;
  /** What a key the extra-key rule spells avoids, so that it matches no pattern but the universal ones. */
  avoid: KeyAvoid;
  /** Schemas a required but unlisted name must satisfy (its matching patterns; else additionalProperties). */
  required: (name: string) => unknown;
}

/** A literal prefix every match of an anchored pattern starts with ("" when none can be told). */
function literalPrefix(p: string): string {
  // An alternative (`^x-|^y-`) starts matches of its own: no prefix holds for them all.
  if (!p.startsWith("^") || hasAlternation(p)) return "";
  let out = "";
  for (let i = 1; i < p.length; i++) {
    const c = p[i]!;
    if ("\\[](){}.*+?|^$".includes(c)) {
      // A quantifier after the last literal makes it optional: drop it.
      return "*+?{".includes(c) ? out.slice(0, -1) : out;
    }
    out += c;
  }
  return out;
}

/** The words a pattern of a few whole words (`^(relationships|links)$`, `^id$`) matches; undefined for another. */
function wordsOf(p: string): string[] | undefined {
  const words = /^\^(?:\((?:\?:)?([A-Za-z0-9_-]+(?:\|[A-Za-z0-9_-]+)*)\)|([A-Za-z0-9_-]+))\$$/.exec(p);
  return words ? (words[1] ?? words[2]!).split("|") : undefined;
}

/** The word a pattern of letters, digits, `_` and `-` alone spells (it matches every key holding it). */
function plainWord(p: string): string | undefined {
  return /^[A-Za-z0-9_-]+$/.test(p) ? p : undefined;
}

/** Whether a pattern has a `|` outside a character class (escaped ones are literals). */
function hasAlternation(p: string): boolean {
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\") i++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "|" && !inClass) return true;
  }
  return false;
}

/**
 * Whether no key matches both patterns: distinct literal prefixes or first characters, else a search of both
 * automata (`^contacts:[0-3]:surName$` and `^contacts:[0-3]:isSirtfiSecurityContact$` share their prefix but no
 * key; taken as overlapping, their string and boolean values merged into none and both patterns' keys were lost).
 * False when unsure. `nfa` builds (and may cache) a pattern's automaton.
 */
function disjointPatterns(a: string, b: string, nfa: (p: string) => Nfa | undefined): boolean {
  const x = literalPrefix(a);
  const y = literalPrefix(b);
  const n = Math.min(x.length, y.length);
  if ((n > 0 && x.slice(0, n) !== y.slice(0, n)) || disjointByFirst(a, b)) return true;
  const [na, nb] = [nfa(a), nfa(b)];
  return na !== undefined && nb !== undefined && languagesDisjoint(na, nb);
}

/**
 * The plan for one object schema's `patternProperties`. `extra`: additionalProperties (undefined when absent and
 * extra members follow JSON Schema, false when they are closed). `avoidPatterns`: let extra keys avoid the
 * patterns where they can (false: they may match any pattern). Default: true. `forbids`: whether a pattern's
 * schema admits no value (default: the schema `false`).
 */
export function planPatterns(
  patterns: Record<string, unknown>,
  listedNames: readonly string[],
  extra: unknown,
  path: string,
  avoidPatterns = true,
  forbids: (schema: unknown) => boolean = (schema) => schema === false,
): PatternPlan | QtcError {
  const at = pointer(path, "patternProperties");
  const entries: { pattern: string; schema: unknown; re: { test(s: string): boolean }; universal: boolean }[] = [];
  for (const [pattern, schema] of Object.entries(patterns)) {
    // Listed names are matched as the validator matches keys: in linear time (a client's pattern cannot hang
    // the compile), with ECMAScript's meaning.
    let re: { test(s: string): boolean };
    try {
      re = linearRegExp(pattern, "u");
    } catch {
      return unsupported(at, `patternProperties pattern ${JSON.stringify(pattern)} is not a regular expression the validator can run in linear time`);
    }
    entries.push({ pattern, schema, re, universal: UNIVERSAL.has(pattern) });
  }
  const listed = new Map<string, unknown[]>();
  const matchedByListed = new Set<string>();
  for (const name of listedNames) {
    const hits = entries.filter((e) => e.re.test(name));
    for (const e of hits) matchedByListed.add(e.pattern);
    if (hits.length > 0) listed.set(name, hits.map((e) => e.schema));
  }
  const all = entries.map((e) => e.schema);
  const anyUniversal = entries.some((e) => e.universal);
  // Keys the extra-key rule spells: they match a universal pattern (so additionalProperties never applies), or
  // they may match any pattern and must satisfy additionalProperties too.
  const open = extra !== false;
  const others = entries.filter((e) => !e.universal);
  const avoidable = avoidPatterns && matchedByListed.size === 0;
  // A pattern whose keys may never be written, merged into every extra key that may match it, leaves extra keys no
  // value at all (MaskBench o27790: `.*` beside a pattern `additionalProperties` of `false` admitted only `{}`;
  // o4179, `_Localised$` of a `not` of every type): there, extra keys avoid the patterns by an automaton.
  const byAutomaton = others.some((e) => forbids(e.schema)) ? { first: [], outside: others.map((e) => e.pattern) } : undefined;
  const avoid = avoidable ? (avoidance(others.map((e) => e.pattern)) ?? byAutomaton) : undefined;
  const universal = entries.filter((e) => e.universal).map((e) => e.schema);
  // Keys that avoid every other pattern get only what applies to them: the universal patterns' schemas, else
  // additionalProperties (exact); keys that may match any pattern must satisfy them all (a subset).
  const spelled = avoid
    ? (anyUniversal ? { allOf: universal } : open ? (extra ?? true) : undefined)
    : anyUniversal ? { allOf: all } : open ? { allOf: [extra ?? true, ...all] } : undefined;
  /** The schemas of every pattern a key matches, in the order they are listed. */
  const schemasMatching = (name: string) => entries.filter((e) => e.re.test(name)).map((e) => e.schema);
  const nfas = new Map<string, Nfa | undefined>();
  const nfaOf = (p: string) => (nfas.has(p) ? nfas.get(p) : nfas.set(p, patternNfa(p)).get(p));
  const keyed: PatternPlan["keyed"] = [];
  for (const e of entries) {
    // A pattern whose keys may never be written spells none (extra keys avoid it, or satisfy its schema: none do).
    if (e.universal || forbids(e.schema)) continue;
    let keys = e.pattern;
    if (matchedByListed.has(e.pattern)) {
      // Its keys could repeat a listed name; the extra-key rule (which never does) covers them, if it is on.
      if (spelled !== undefined) continue;
      // Closed: the pattern's keys without the listed names it matches (those are written as listed members).
      const without = patternWithout(e.pattern, listedNames.filter((n) => e.re.test(n)));
      if (without === null) continue;
      if (without === undefined) return unsupported(at, `a listed property matches the patternProperties pattern ${JSON.stringify(e.pattern)}, and its other keys cannot be spelled apart from the listed names (additionalProperties false)`);
      keys = without;
    }
    let overlapping = entries.filter((o) => o !== e && !disjointPatterns(e.pattern, o.pattern, nfaOf));
    // Keys a pattern of a few words bans (`^(relationships|links)$` of `not: {}`, MaskBench o366) are taken out of
    // this pattern's keys, rather than merged into all of them (no value at all).
    const banned = overlapping.filter((o) => forbids(o.schema) && wordsOf(o.pattern) !== undefined);
    if (banned.length > 0) {
      const without = patternWithout(keys, banned.flatMap((o) => wordsOf(o.pattern)!).filter((w) => e.re.test(w)));
      if (without === null) continue;
      if (without !== undefined) [keys, overlapping] = [without, overlapping.filter((o) => !banned.includes(o))];
    }
    keyed.push({ pattern: e.pattern, key: { type: "string", pattern: keys }, value: overlapping.length > 0 ? { allOf: [e.schema, ...overlapping.map((o) => o.schema)] } : e.schema });
    // A pattern that is a plain word (`hipchat`) also gets that very key, with the schemas of exactly the patterns
    // that match it: exact where the pattern's other keys (`xhipchat-github`) must satisfy every overlapping one.
    const word = plainWord(e.pattern);
    if (word !== undefined && overlapping.length > 0 && !listedNames.includes(word)) {
      const hits = schemasMatching(word);
      keyed.push({ pattern: e.pattern, key: { const: word }, value: hits.length > 1 ? { allOf: hits } : hits[0] });
    }
  }
  const required = (name: string) => {
    const hits = schemasMatching(name);
    return hits.length > 0 ? { allOf: hits } : open ? (extra ?? true) : false;
  };
  return { listed, keyed, spelled, avoid: avoid ?? { first: [] }, required };
}

/**
 * How an extra key can match none of these patterns: by not being one of the few keys a pattern names (`^billing_id$`,
 * `^v[12]$`), by
 * its first character (`^/`, `^x-`: every match starts with one of a few characters), or by holding a character a
 * pattern anchored at both ends never spells (`^[a-z0-9]+$`). Undefined when a pattern allows neither, or when no one-character key is left (the extra key
 * is charged one character at least).
 */
function avoidance(patterns: readonly string[]): KeyAvoid | undefined {
  const first: CodeRange[] = [];
  const leave: CodeRange[] = [];
  const words: string[] = [];
  let mustLeave = false;
  for (const p of patterns) {
    // A pattern of a few keys (`^billing_id$`, `^(consumer_(key|secret)|access_token_(key|secret))$`) is avoided as
    // listed names are: those keys are never spelled, every other key is (exact; a key that must hold a character
    // outside the pattern's letters refused `name` beside the four keys of MaskBench's o61781).
    const few = patternWords(p);
    if (few !== undefined) {
      words.push(...few);
      continue;
    }
    const chars = patternAlphabet(p);
    if (chars && intersect(complement(chars), KEY_CHARS).length > 0) {
      leave.push(...chars);
      mustLeave = true;
      continue;
    }
    const starts = patternFirst(p);
    if (!starts || intersect(complement(starts.ranges), KEY_CHARS).length === 0) return undefined;
    first.push(...starts.ranges);
  }
  const avoid: KeyAvoid = { first: normalizeRanges(first), ...(mustLeave ? { leave: normalizeRanges(leave) } : {}), ...(words.length > 0 ? { words } : {}) };
  const oneChar = intersect(complement([...avoid.first, ...(avoid.leave ?? [])]), KEY_CHARS);
  return oneChar.length > 0 ? avoid : undefined;
}
