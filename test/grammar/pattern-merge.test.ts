// Two patterns in one allOf where one's strings all match the other (src/grammar/regex-overlap.ts
// languageIncluded; issue 49's MaskBench coverage: `^[a-z]+[a-z0-9-]*$` beside `.*`, a name beside a dotted name):
// the narrower pattern stands for both, and the grammar admits exactly the strings qtc's validator accepts. So does
// a pattern beside a format (`date` beside `^([0-9]{4})(-…)?(-…)?$`, `email` beside `^.*?@.*$`). Two patterns
// neither of which holds the other become their intersection (pattern-automata.test.ts).

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { languageIncluded, languageNfa, narrowerPattern } from "../../src/grammar/regex-overlap.js";
import { parsePattern } from "../../src/grammar/regex.js";
import { admitsExactlyValid } from "./helpers.js";

const STRINGS = ["", "a", "ab", "a-1", "A", "_x", "x.y", "x.y.z", "1abc", "abc!", "1234", "12345", "a\nb", "é", ".x"];

const nfa = (p: string) => {
  const parsed = parsePattern(p);
  if (!parsed.ok) throw new Error(parsed.reason);
  return languageNfa({ t: "pattern", pattern: parsed.value })!;
};

describe("two patterns in one allOf, one holding the other (issue 49)", () => {
  for (const [a, b] of [
    ["^[a-z]+[a-z0-9-]*$", ".*"],
    ["^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$", "^[A-Za-z_][A-Za-z0-9_]*$"],
    ["^[0-9]+$", "^[0-9]{4}$"],
  ]) {
    it(`${a} and ${b}: the grammar admits exactly the strings the validator accepts`, async () => {
      const schema = { type: "string", allOf: [{ pattern: a }, { pattern: b }] };
      await admitsExactlyValid(schema, STRINGS);
    });
  }

  for (const [format, pattern, strings] of [
    ["date", "^([0-9]{4})(-([0-9]{2}))?(-([0-9]{2}))?$", ["2024-01-05", "2024-02-29", "2023-02-29", "2024-13-01", "2024", "2024-01", "x", ""]],
    ["date-time", ".+(Z|[+\\-]\\d{2}:\\d{2})", ["2024-01-05T10:00:00Z", "2024-01-05T10:00:00+01:00", "2024-01-05T25:00:00Z", "xZ", "2024-01-05"]],
    ["email", "^.*?@.*.*$", ["a@b.co", "a.b@c-d.example", "@b.co", "a@", "a b@c.de", "ab"]],
    ["email", "^[a-z]+@[a-z]+\\.com$", ["a@b.com", "ab@cd.com", "a@b.co", "A@b.com", "a@b"]],
  ] as const) {
    it(`format ${format} beside ${pattern}: the grammar admits exactly the strings the validator accepts`, async () => {
      const schema = { type: "string", format, pattern };
      await admitsExactlyValid(schema, strings);
    });
  }

  it("a pattern beside a format, neither holding the other, stays refused", () => {
    for (const [format, pattern] of [["date", "^2"], ["email", "^[a-z]+@"], ["uri", "^h+:"]]) {
      expect(compileSchema({ type: "string", format, pattern }, { unsupported: "strict" }), `${format} ${pattern}`).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/pattern" } });
    }
  });

  it("languageIncluded proves inclusion only where it holds", () => {
    expect(languageIncluded(nfa("^ab"), nfa("a"))).toBe(true);
    expect(languageIncluded(nfa("a"), nfa("^ab"))).toBe(false);
    expect(languageIncluded(nfa("^a$"), nfa("^a"))).toBe(true);
    expect(languageIncluded(nfa("^[0-9]{4}$"), nfa("^[0-9]{3,}$"))).toBe(true);
    expect(languageIncluded(nfa("^[0-9]{2,4}$"), nfa("^[0-9]{3,}$"))).toBe(false);
    expect(narrowerPattern("^a", "^b")).toBeUndefined();
  });
});
