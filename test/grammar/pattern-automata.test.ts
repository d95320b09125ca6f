// Patterns as automata (src/grammar/regex-dfa.ts; issue 49's MaskBench coverage): two patterns in one allOf that
// neither holds the other of, `not` of any pattern, and minLength beside a pattern no class carries, each held as one
// pattern read off a minimized DFA. The patterns built match exactly the strings the sources say (checked against
// JavaScript's own RegExp over every short string of a small alphabet), the grammar admits exactly what qtc's
// validator accepts, and an automaton past the module's bounds leaves the schema refused as before. Escaped ASCII
// punctuation (`\:`, `\@`) reads as the character itself, in the grammar and in the validator alike.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { patternOfBoth, patternOutside } from "../../src/grammar/regex-dfa.js";
import { boundedPattern } from "../../src/grammar/schema-bounds.js";
import { ambiguousRepeat } from "../../src/grammar/regex-ambiguity.js";
import { parsePattern } from "../../src/grammar/regex.js";
import { patternRegExp } from "../../src/tools/linear-regexp.js";
import { compileValueValidator } from "../../src/tools/validators.js";
import { admitsExactlyValid } from "./helpers.js";

/** Every string of up to `n` characters over `alphabet`. */
function strings(alphabet: string, n: number): string[] {
  let level = [""];
  const out = [""];
  for (let i = 0; i < n; i++) {
    level = level.flatMap((s) => [...alphabet].map((c) => s + c));
    out.push(...level);
  }
  return out;
}

const SHORT = strings("ab1-.", 5);

describe("patterns as automata (issue 49)", () => {
  for (const [a, b] of [
    ["^[a-z][a-z0-9-]*$", "^.{1,4}$"],
    ["a", "b"],
    ["^(ab|a)*$", "b$"],
    ["[0-9]", "^[^-]*$"],
    ["^a", "^b"],
  ]) {
    it(`${a} and ${b}: the pattern built matches exactly the strings both match`, () => {
      const both = patternOfBoth(a, b);
      const [ra, rb] = [patternRegExp(a), patternRegExp(b)];
      const expected = SHORT.filter((s) => ra.test(s) && rb.test(s));
      if (both === null) return expect(expected).toEqual([]);
      expect(both).toBeTypeOf("string");
      const r = patternRegExp(both!);
      expect(SHORT.filter((s) => r.test(s))).toEqual(expected);
    });
  }

  for (const p of ["^a$", "ab", "^[ab]+$", "^(a1|b)*-?$", "\\.$", "^$"]) {
    it(`not ${p}: the pattern built matches exactly the strings it does not`, () => {
      const outside = patternOutside(p)!;
      const [r, own] = [patternRegExp(outside), patternRegExp(p)];
      for (const s of SHORT) expect(r.test(s), JSON.stringify(s)).toBe(!own.test(s));
    });
  }

  it("a pattern every string matches has nothing outside it", () => {
    expect(patternOutside("")).toBeNull();
    expect(patternOutside("^[\\s\\S]*$")).toBeNull();
  });

  it("the loops read off an automaton split one way, so the ambiguity bound keeps them", () => {
    // A repetition of something that repeats, neither delimited nor rewritable, but prefix-free.
    expect(boundedPattern("^(ab*c|d)*$").ok).toBe(true);
    // Still flagged where one iteration's string starts another's ("a" and "ab"); boundedPattern then reads the
    // pattern off its own DFA instead (below).
    const loop = parsePattern("^([a-z]+\\.?[a-z]*)+$");
    expect(loop.ok && ambiguousRepeat(loop.value.branches[0]!.re)).toBeTruthy();
  });

  it("two patterns in one allOf: the grammar admits exactly the strings the validator accepts", async () => {
    await admitsExactlyValid({ type: "string", allOf: [{ pattern: "^[a-z][a-z0-9-]*$" }, { pattern: "^.{1,12}$" }] }, ["", "a", "a-1", "abcdefghijkl", "abcdefghijklm", "1a", "a_b", "Ab"]);
  });

  it("a pattern beside values it must not be (a name that is no reserved word)", async () => {
    const schema = { type: "string", pattern: "^[a-z]+[a-z0-9-]*$", minLength: 2, maxLength: 12, not: { enum: ["test", "source", "include"] } };
    await admitsExactlyValid(schema, ["ab", "test", "tests", "tes", "source", "include", "x", "a1", "1a", "a".repeat(12), "a".repeat(13)]);
  });

  it("two patterns no string matches both of leave no string, and other types valid", async () => {
    await admitsExactlyValid({ allOf: [{ pattern: "^a" }, { pattern: "^b" }] }, ["a", "b", "ab", "", 1, null, true]);
    expect(compileSchema({ type: "string", allOf: [{ pattern: "^a" }, { pattern: "^b" }] }, { unsupported: "strict" })).toMatchObject({ ok: false, error: { code: "unsatisfiable_schema" } });
  });

  it("not of a pattern that is no class repeat", async () => {
    await admitsExactlyValid({ type: "string", not: { pattern: "ghlint|plugin" } }, ["", "x", "ghlint", "my-plugin-x", "plug", "ghlin", "a-ghlint-b"]);
  });

  it("minLength beside a pattern no single class carries", async () => {
    await admitsExactlyValid({ type: "string", pattern: "^[a-z]+(?:-[a-z0-9]+)*$", minLength: 3 }, ["a", "ab", "abc", "a-1", "a-", "a-b-c", "ab-", "-ab"]);
  });

  it("escaped ASCII punctuation is the character itself, in the grammar and in the validator", async () => {
    await admitsExactlyValid({ type: "string", pattern: "^a\\:b\\@c\\#$" }, ["a:b@c#", "a:b@c", "ab@c#", "a\\:b@c#"]);
    // A name that is none of the punctuation it must not be made of only (MaskBench's officer names).
    await admitsExactlyValid({ type: "string", minLength: 1, not: { pattern: "^[\\.\\,\\*\\-\\s]+$" } }, ["", ".", ", *", "a", "a.", "-,-"]);
    expect(() => compileValueValidator({ type: "string", pattern: "\\:" })).not.toThrow();
  });

  it("contains beside a prefix item: the item told apart from contains by the patterns' automata", async () => {
    const schema = { type: "array", prefixItems: [{ type: "string", pattern: "^a" }], items: false, contains: { pattern: "b$" } };
    await admitsExactlyValid(schema, [[], ["a"], ["ab"], ["b"], ["acb"], ["ba"]]);
  });

  it("an ambiguous loop no rule rewrites is read off the pattern's DFA: the grammar admits exactly what the validator accepts", async () => {
    await admitsExactlyValid({ type: "string", pattern: "^([a-z]+\\.?[a-z]*)+$" }, ["a", "ab", "a.b", "a..b", "a.", ".a", "", "a.b.c", "ab.cd"]);
  });

  it("a `^` after a character, or a character after `$`, matches nothing: no string is valid, other types are", async () => {
    await admitsExactlyValid({ type: ["string", "null"], pattern: "/^[0-9]{4}$/" }, ["2024", "/2024/", "", null]);
    await admitsExactlyValid({ type: "string", pattern: "a$b|c" }, ["c", "ab", "a", "xc"]);
  });

  it("an automaton past the bounds leaves the schema refused, by pointer", () => {
    // "an a nine characters from the end" takes 2^10 states as a DFA.
    const r = compileSchema({ type: "string", allOf: [{ pattern: "^[ab]*a[ab]{9}$" }, { pattern: "^[ab]*b[ab]{8}$" }] }, { unsupported: "strict" });
    expect(r).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/allOf/1/pattern" } });
  });
});
