// The linear-time pattern engine ajv runs (src/tools/linear-regexp.ts): same answers as ECMAScript's RegExp
// (`u` flag) on generated patterns, every pattern the grammar's subset accepts compiles, and what cannot run in
// linear time is refused by name.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePattern } from "../../src/grammar/regex.js";
import { linearRegExp, translateToRe2 } from "../../src/tools/linear-regexp.js";
import { readsAtTenfold } from "../helpers/work-count.js";

const ATOMS = ["a", "b", "-", "é", "😀", " ", "_", "1", ".", "\\.", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "\\u00e9", "\\u{1F600}", "\\ud83d\\ude00", "\\n", "\\t", "\\x41", "\\/", "\\[", "\\]"];
const CLASS_ITEMS = ["a", "a-c", "0-9", "\\d", "\\s", "\\S", "\\w", "é", "\\-", ".", "[", "😀", "\\u2028", " ", "_"];
const QUANTS = ["", "", "*", "+", "?", "{0,2}", "{2}", "{1,}", "*?", "+?"];

const patternArb: fc.Arbitrary<string> = fc.letrec<{ alt: string; seq: string; atom: string }>((tie) => ({
  alt: fc.array(tie("seq"), { minLength: 1, maxLength: 3 }).map((s) => s.join("|")),
  seq: fc.array(fc.tuple(tie("atom"), fc.constantFrom(...QUANTS)).map(([a, q]) => a + q), { minLength: 1, maxLength: 4 }).map((s) => s.join("")),
  atom: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...ATOMS) },
    { weight: 2, arbitrary: fc.tuple(fc.boolean(), fc.array(fc.constantFrom(...CLASS_ITEMS), { minLength: 1, maxLength: 4 })).map(([neg, items]) => `[${neg ? "^" : ""}${items.join("")}]`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("(", "(?:"), tie("alt")).map(([open, body]) => `${open}${body})`) },
  ),
})).alt.chain((body) => fc.tuple(fc.boolean(), fc.boolean()).map(([s, e]) => `${s ? "^" : ""}${body}${e ? "$" : ""}`));

const inputArb = fc.array(fc.constantFrom("a", "b", "c", "-", ".", "é", "😀", " ", "\n", "\u2028", "\u00a0", "1", "_", "x", "A", "\t", "[", "/", "\ud800"), { maxLength: 8 }).map((p) => p.join(""));

describe("linearRegExp", () => {
  it("answers like RegExp with the u flag", () => {
    fc.assert(
      fc.property(patternArb, fc.array(inputArb, { minLength: 1, maxLength: 8 }), (pattern, inputs) => {
        const native = new RegExp(pattern, "u");
        const linear = linearRegExp(pattern, "u");
        for (const s of inputs) expect([pattern, s, linear.test(s)]).toEqual([pattern, s, native.test(s)]);
      }),
      { numRuns: 1500 },
    );
  });

  it("compiles every pattern the grammar's subset accepts", () => {
    fc.assert(
      fc.property(patternArb, (pattern) => {
        if (parsePattern(pattern).ok) expect(translateToRe2(pattern).ok).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it("refuses lookaround and backreferences, and what RegExp itself refuses", () => {
    for (const p of ["^(?=x)x$", "(?!a)b", "(?<=a)b", "(?<!a)b", "^(a)\\1$", "(?<n>a)\\k<n>", "a**", "[b-a]", "("]) {
      expect(translateToRe2(p).ok).toBe(false);
      expect(() => linearRegExp(p, "u")).toThrow();
    }
  });

  it("reads escaped punctuation and a brace or bracket that opens or closes nothing as the character itself", () => {
    const t = (p: string, s: string) => linearRegExp(p, "u").test(s);
    expect([t("^\\-x$", "-x"), t("^a\\:b\\@$", "a:b@"), t("^a{$", "a{"), t("^\\{d}$", "{d}"), t("^x]$", "x]")]).toEqual([true, true, true, true, true]);
    expect([t("^a\\:b$", "ab"), t("^a{2}$", "a{2}"), t("^a{2}$", "aa")]).toEqual([false, false, true]);
  });

  it("keeps ECMAScript's meaning where RE2's differs", () => {
    const t = (p: string, s: string) => linearRegExp(p, "u").test(s);
    expect(t("^.$", "\u2028")).toBe(false); // `.` excludes every line terminator
    expect(t("^\\s$", "\u3000")).toBe(true); // `\s` is Unicode space
    expect(t("^[[:a]+$", "[:a")).toBe(true); // `[` in a class is a literal, not a POSIX class
    expect(t("^\\ud83d\\ude00$", "😀")).toBe(true); // two escapes, one code point
    expect(t("^(?<year>\\d{4})$", "2024")).toBe(true);
    expect(t("^[]$", "")).toBe(false);
    expect(t("^[^]$", "😀")).toBe(true);
  });

  it("runs a catastrophic pattern in linear time (counted in characters read, n against 10·n)", () => {
    const re = linearRegExp("^(a+)+$", "u");
    expect(re.test("a".repeat(100_000) + "!")).toBe(false);
    const growth = readsAtTenfold((n) => re.test("a".repeat(n) + "!"), 10_000);
    expect(growth.small).toBeGreaterThanOrEqual(10_000); // every character is read…
    expect(growth.ratio, JSON.stringify(growth)).toBeLessThan(15); // …a bounded number of times
  });
});
