// The `regex` string format (src/grammar/regex-format.ts; issue 49's MaskBench coverage: SchemaStore's `TestPattern`,
// `validationRegex`, commit-message filters): every string the grammar admits is a pattern JavaScript compiles with
// and without the `u` flag and one ajv-formats accepts, checked over every string of up to four characters of regex
// syntax; the patterns people write are admitted; and the format is left uncounted only under the shared split.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { judgeTextWithGbnf } from "../../src/engine/text-judge.js";
import { admitsExactlyValid } from "./helpers.js";

const grammar = () => {
  const r = compileSchema({ type: "string", format: "regex" }, { maxTokens: 256, unsupported: "strict" });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.gbnf;
};

/** What ajv-formats' `regex` asks (a pattern `new RegExp` compiles, not ending a line in `\Z`), and the `u` flag too. */
function compiles(s: string): boolean {
  if (/[^\\]\\Z/.test(s)) return false;
  try {
    new RegExp(s, "u");
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

describe("format regex (issue 49)", () => {
  it("admits only patterns JavaScript compiles: every string of up to 4 characters of regex syntax", () => {
    const gbnf = grammar();
    let level = [""];
    const all = [""];
    for (let i = 0; i < 4; i++) {
      level = level.flatMap((s) => [..."a(|)*[]{}\\-^?1"].map((c) => s + c));
      all.push(...level);
    }
    const admitted = all.filter((s) => judgeTextWithGbnf(gbnf, JSON.stringify(s)) === "accepted");
    expect(admitted.filter((s) => !compiles(s))).toEqual([]);
    // Not a trivial subset: thousands of them, groups, classes, quantifiers and escapes among them.
    expect(admitted.length).toBeGreaterThan(2_000);
    for (const s of ["(a)*", "[a-]", "a{1}", "\\(", "a|", "(a|)"]) expect(admitted, s).toContain(s);
  });

  it("admits the patterns schemas carry, and refuses broken ones", () => {
    const gbnf = grammar();
    const written = ["^[a-zA-Z0-9_]{3,16}$", "^\\s*(it|describe)\\(\\s*['\"]([^'\"]+)['\"]", "^value1|value2$", "", "(?<=@)[\\w.-]+$", "^v\\d+\\.\\d+(\\.\\d+)?$", "a{3,16}?"];
    for (const s of written) expect(judgeTextWithGbnf(gbnf, JSON.stringify(s)), s).toBe("accepted");
    for (const s of ["[", "(a", "a**", "[z-a]", "a{2,1}", "\\", "*", "x\\Z"]) expect(judgeTextWithGbnf(gbnf, JSON.stringify(s)), s).toBe("rejected");
  });

  it("as a member: the grammar admits exactly what the validator accepts (of what it spells)", async () => {
    await admitsExactlyValid({ type: "object", properties: { p: { type: "string", format: "regex" } }, required: ["p"], additionalProperties: false }, [{ p: "^a+$" }, { p: "(" }, { p: "" }, { p: 1 }, {}]);
  });

  it("needs the shared split (it has no longest spelling); the worst-case split refuses it by budget", () => {
    const r = compileSchema({ type: "string", format: "regex" }, { maxTokens: 256, unsupported: "strict", budgetSplit: "worst-case" });
    expect(r.ok ? undefined : r.error.code).toBe("budget_too_small");
  });
});
