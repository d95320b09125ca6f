// minLength beside a pattern that allows shorter strings (src/grammar/pattern-length.ts; issue 49's MaskBench
// coverage: `^$|^[a-z]…` with minLength 1, `^(http|https)://.*` with minLength 10, an optional-parts duration
// with minLength 1): the pattern narrowed to its long enough strings, and the grammar admits exactly the strings
// qtc's validator accepts. A length two repeated parts would have to share is held by the pattern's automaton beside
// "at least m characters" (regex-dfa.ts) up to 64; beyond that it stays refused.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { admitsExactlyValid } from "./helpers.js";

const cases: [string, number, string[]][] = [
  // A branch shorter than minLength dropped.
  ["^$|^[a-z][a-z0-9A-Z]*$", 1, ["", "a", "aB1", "1a", "A"]],
  ["^\\*$|^$|^[A-Z][a-z0-9A-Z]*$", 1, ["", "*", "A", "Ab", "a", "**"]],
  ["^a(b|cd)$", 3, ["ab", "acd", "a", "abcd"]],
  // Alternatives of different lengths spread; the open end carries the rest.
  ["^(http|https)://.*", 10, ["http://ab", "http://abc", "https://ab", "https://a", "https://abc\nd", "http://", "ftp://abcdef", "http://a\nbc"]],
  ["^(https|http)://(mariadb.com|dev.mysql.com)", 20, ["http://mariadb.com", "https://mariadb.com", "https://mariadb.comx", "http://mariadb.com/a", "http://dev.mysql.com", "https://dev.mysql.com/doc"]],
  // minLength 1: split by the first part that spells something.
  ["^([^,]|$)", 1, ["", "a", "a,b", ",", ",a", "ab"]],
  ["^([0-9]+y)?([0-9]+w)?([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?$", 1, ["", "1y", "2w3d", "5m", "10ms", "1s2ms", "y", "1x", "3h4m5s"]],
  ["^(/[^/]+)*/?$", 1, ["", "/", "/a", "/a/b", "/a/", "//", "a", "/a//b"]],
  // Two repeated parts share the length: the automaton's pattern.
  ["^[a-z]+(?:-[a-z0-9]+)*$", 3, ["a", "ab", "abc", "a-1", "a-", "a-b-c", "ab-", "-ab"]],
  ["^.*@.*\\..*$", 6, ["a@b.c", "a@b.cd", "ab@.c", "@.", "abc@d.", "a@bcde", "a@b\nc.d"]],
];

describe("minLength beside a pattern that allows shorter strings (issue 49)", () => {
  for (const [pattern, minLength, strings] of cases) {
    it(`${pattern} with minLength ${minLength}: the grammar admits exactly the strings the validator accepts`, async () => {
      await admitsExactlyValid({ type: "string", pattern, minLength }, strings);
    });
  }

  it("a length that two repeated parts would have to share, above 64, stays refused", () => {
    for (const [pattern, minLength] of [["^[a-z]+(?:-[a-z0-9]+)*$", 65], ["^.*@.*\\..*$", 66]] as const) {
      expect(compileSchema({ type: "string", pattern, minLength }, { unsupported: "strict" }), pattern).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/minLength" } });
    }
  });
});
