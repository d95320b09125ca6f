// A repetition whose iterations could split one text many ways (src/grammar/regex-loops.ts; issue 49's MaskBench
// coverage: the e-mail pattern `([a-z\d.-]+\.)+`, dotted names `(\.?[a-z]+)*`, hyphenated words `([a-z]+-?)+`)
// compiles as a repetition of the same language that splits one way, and the grammar admits exactly the strings
// qtc's validator accepts. A repetition no rule fits stays refused.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { boundedPattern } from "../../src/grammar/schema-bounds.js";
import { admitsExactlyValid } from "./helpers.js";

const cases: [string, string[]][] = [
  // (S+C)+ with C inside S: closed under concatenation, the body once.
  ["^[a-z\\d_\\.-]+@([a-z\\d\\.-]+\\.)+[a-z]+$", ["a@b.c", "a@b.c.d", "a@b..c", "a@.c", "a@b.", "a@bc", "a@b.c1", "@b.c", "a@b-.c", "a@B.c", "a@b.c.", ""]],
  // (S+C)* : the body at most once.
  ["^[a-z\\d_\\.\\+-]+@([a-z\\d\\.-]+\\.)*(([a-z]+)|\\(none\\))$", ["a@b", "a@b.c", "a@x.y.(none)", "a@(none)", "a@.b", "a@b.", "a@", "a@b.(none", "+@b"]],
  // Unanchored: searched anywhere in the string.
  ["[\\w\\d_\\.-]+@([\\w\\d_\\.-]+\\.)+[\\w]+", ["a@b.c", "x a@b.c y", "a@b", "@.c", "a@.c", "a@b.c!", "a@b!c"]],
  // A run at one end that holds every character of the body: (X)* is X at most once.
  ["^(KONG_\\w+=\\S+)*(\\sKONG_\\w+=\\S+)*$", ["", "KONG_A=1", "KONG_A=1KONG_B=2", "KONG_A=1 KONG_B=2", "KONG_A=", "KONG_=1", "KONG_A=1 ", " KONG_A=1", "X=1"]],
  ["^([a-z]+[a-z0-9]*)+$", ["a", "a1", "ab1c", "1a", "", "a-b"]],
  // (P?T+)* with P apart from T: T*(PT+)*.
  ["^[a-zA-Z_](\\.?[a-zA-Z0-9_]+)*$", ["a", "a.b", "ab", "a.b.c", "a..b", "a.", ".a", "a.1", "1a", "a.b1.c2", ""]],
  ["^([a-z0-9])+((-)?([a-z0-9])+)*$", ["a", "a-b", "a--b", "-a", "a-", "ab-cd-ef", "a-b-", "", "A"]],
  // (T+P?)+ with P apart from T: T+(PT+)*P?.
  ["^(?:[A-Za-z0-9]+[-]?)+[A-Za-z0-9]$", ["ab", "a-b", "a--b", "-ab", "ab-", "a", "a-b-c", "abc-d", ""]],
  // (|X)* is X*.
  ["^\\w+(|\\.[\\w,]+)*$", ["a", "a.b", "a.b,c", "a..b", "a.", "a.b.c", ".a", "a,b", ""]],
];

describe("an ambiguous repetition rewritten into one that splits one way (issue 49)", () => {
  for (const [pattern, strings] of cases) {
    it(`${pattern}: the grammar admits exactly the strings the validator accepts`, async () => {
      expect(boundedPattern(pattern).ok).toBe(true);
      await admitsExactlyValid({ type: "string", pattern }, strings);
    });
  }

  it("a repetition no rule fits, whose automaton is too large too, stays refused (the runtime's engine would pay for every way to split it)", () => {
    // Without the tail (an `a` twelve characters from the end: 2^12 DFA states) both are read off their DFA (pattern-automata.test.ts).
    for (const pattern of ["^([0-9x]+\\.[0-9x]+\\.*[0-9x]*\\s*)+[ab]*a[ab]{11}$", "^([a-z]+\\.?[a-z]*)+[ab]*a[ab]{11}$"]) {
      expect(compileSchema({ type: "string", pattern }, { unsupported: "strict" }), pattern).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/pattern" } });
    }
  });
});
