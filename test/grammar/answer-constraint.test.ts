// Answer constraints at the grammar level: checked and bounded, compiled where free text would be under each tool
// choice, and judged by one path.

import { describe, expect, test } from "vitest";
import { checkTextConstraint, constraintBreach, CONSTRAINT_LIMITS, constraintKind } from "../../src/grammar/answer-constraint.js";
import { compileToolGrammar } from "../../src/grammar/compile.js";
import { judgeConstraint } from "../../src/runtime/answer-request.js";
import { parseUserGrammar } from "../../src/engine/user-gbnf.js";

const TOOLS = [{ name: "lookup", description: "", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }];
const checked = (c: Parameters<typeof checkTextConstraint>[0]) => {
  const r = checkTextConstraint(c, parseUserGrammar);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe("checkTextConstraint", () => {
  test("constraintKind wants exactly one known key", () => {
    expect(constraintKind({ regex: "a" })).toEqual({ ok: true, value: "regex" });
    expect(constraintKind({ regex: "a", choice: ["a"] }).ok).toBe(false);
    expect(constraintKind({ lark: "x" }).ok).toBe(false);
  });

  test("a constraint is read once: checking the same object again (the server's check, then the runtime's) reads nothing, and a changed one is read anew", () => {
    let reads = 0;
    const counting = (source: string) => {
      reads++;
      return parseUserGrammar(source);
    };
    const c = { grammar: 'root ::= "yes" | "no"' };
    const first = checkTextConstraint(c, counting);
    expect(first.ok).toBe(true);
    expect(checkTextConstraint(c, counting)).toBe(first);
    expect(reads).toBe(1);
    c.grammar = 'root ::= "maybe"';
    const second = checkTextConstraint(c, counting);
    expect(reads).toBe(2);
    expect(second.ok && second.value.kind === "grammar" && second.value.source).toBe('root ::= "maybe"');
    expect(checkTextConstraint({ grammar: c.grammar }, counting)).not.toBe(second);
    expect(reads).toBe(3);
  });

  test("bounds: regex length, choice count and size, a '<' an answer cannot hold", () => {
    expect(checkTextConstraint({ regex: "a".repeat(CONSTRAINT_LIMITS.regexChars + 1) })).toMatchObject({ ok: false, error: { code: "too_large" } });
    expect(checkTextConstraint({ choice: ["x".repeat(CONSTRAINT_LIMITS.choiceBytes + 1)] })).toMatchObject({ ok: false, error: { code: "too_large" } });
    expect(checkTextConstraint({ choice: ["<b>"] })).toMatchObject({ ok: false, error: { code: "invalid_option" } });
    expect(checkTextConstraint({ regex: "<b>" })).toMatchObject({ ok: false, error: { code: "invalid_option" } });
    expect(checkTextConstraint({ regex: "(?<=a)b" })).toMatchObject({ ok: false, error: { code: "invalid_option" } });
  });

  test("the judge: regex over the whole answer, exact choice membership, grammar acceptance", () => {
    const re = checked({ regex: "[A-Z]{3}-[0-9]{4}" });
    expect(constraintBreach(re, "ABC-1234")).toBeUndefined();
    expect(constraintBreach(re, "xABC-1234")).toMatch(/does not match/);
    const choice = checked({ choice: ["PASS", "FAIL"] });
    expect(constraintBreach(choice, "PASS")).toBeUndefined();
    expect(constraintBreach(choice, "PASSED")).toMatch(/exactly one of "PASS", "FAIL"/);
    const g = checked({ grammar: 'root ::= "v" [0-9]+' });
    expect(judgeConstraint(g, "v12")).toBeUndefined();
    expect(judgeConstraint(g, "v")).toMatch(/not accepted/);
    expect(() => constraintBreach(g, "v12")).toThrow(/judged by the constraint engine/);
  });
});

describe("compiled beside tools", () => {
  test("auto: the root is the answer or calls; none: the answer alone; required: calls only", () => {
    const answerConstraint = checked({ choice: ["PASS", "FAIL"] });
    const auto = compileToolGrammar(TOOLS, { toolChoice: "auto", answerConstraint, maxTokens: 128 });
    const none = compileToolGrammar(TOOLS, { toolChoice: "none", answerConstraint, maxTokens: 128 });
    const required = compileToolGrammar(TOOLS, { toolChoice: "required", answerConstraint, maxTokens: 128 });
    if (!auto.ok || !none.ok || !required.ok) throw new Error("compile failed");
    expect(auto.value.gbnf).toMatch(/^root ::= \(answer \| /m);
    expect(auto.value.gbnf).toContain('answer ::= ("PASS" | "FAIL")');
    expect(none.value.gbnf).toMatch(/^root ::= answer$/m);
    expect(required.value.gbnf).not.toContain("PASS");
  });

  test("a regex's repetitions are bounded by the budget; too small a budget is budget_too_small", () => {
    const open = checked({ regex: "[a-z]+" });
    const r = compileToolGrammar([], { toolChoice: "none", answerConstraint: open, maxTokens: 16 });
    expect(r.ok && r.value.gbnf).toMatch(/\[a-z\]\{1,16\}/);
    const tight = compileToolGrammar([], { toolChoice: "none", answerConstraint: checked({ regex: "[a-z]{20}" }), maxTokens: 8 });
    expect(tight).toMatchObject({ ok: false, error: { code: "budget_too_small" } });
  });
});
