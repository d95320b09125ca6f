// A caller's GBNF for the answer: parsed in the dialect qtc prints, bounded (size, rules, counts, left recursion,
// special tokens), printed under fresh rule names with classes narrowed to answer text, and judged by the same tree.

import { describe, expect, test } from "vitest";
import { RuleSet } from "../../src/grammar/gbnf.js";
import { grammarAccepts, parseUserGrammar, printUserGrammar, USER_GRAMMAR_LIMITS } from "../../src/grammar/user-gbnf.js";

const parsed = (src: string) => {
  const g = parseUserGrammar(src);
  if (!g.ok) throw new Error(g.error.message);
  return g.value;
};

describe("parseUserGrammar and grammarAccepts", () => {
  test("rules, literals with escapes, classes, groups, repetitions and comments", () => {
    const g = parsed(['# a verdict and a score', 'root ::= verdict ":" ws score ("\\n" note)?', 'verdict ::= "PASS" | "FAIL"', 'ws ::= [ \\t]*', "score ::= [0-9]{1,3}", "note ::= [^\\n]+"].join("\n"));
    for (const ok of ["PASS:1", "FAIL: \t42", "PASS:100\nfine", "FAIL:7\n\u00e9t\u00e9"]) expect(grammarAccepts(g, ok), ok).toBe(true);
    for (const bad of ["PASS", "pass:1", "PASS:1000", "PASS:1\n", "PASS:1 "]) expect(grammarAccepts(g, bad), bad).toBe(false);
  });

  test("recursion that reads a character first is accepted and judged", () => {
    const g = parsed('root ::= "(" root ")" | "x"');
    expect(grammarAccepts(g, "((x))")).toBe(true);
    expect(grammarAccepts(g, "((x)")).toBe(false);
  });

  test("a repetition of something that can match nothing still ends, and counts hold", () => {
    const g = parsed('root ::= ("a" | ""){2,} "b"');
    expect(grammarAccepts(g, "b")).toBe(true);
    expect(grammarAccepts(g, "aaab")).toBe(true);
    expect(grammarAccepts(parsed('root ::= "a"{2,3}'), "a")).toBe(false);
    expect(grammarAccepts(parsed('root ::= "a"{2,3}'), "aaa")).toBe(true);
  });

  test.each([
    ['start ::= "a"', /no "root" rule/],
    ['root ::= other', /"other", which is not defined/],
    ['root ::= root "a" | "b"', /left-recursive/],
    ['root ::= x\nx ::= "a"? root', /left-recursive/],
    ["root ::= <[151657]>", /special tokens/],
    ['root ::= "a"{2000}', /above 1000/],
    ['root ::= "a', /unterminated literal/],
    ["root ::= [<]", /only characters an answer cannot hold/],
    ['root ::= "a"\nroot ::= "b"', /defined twice/],
  ])("%j is refused", (src, why) => {
    const g = parseUserGrammar(src);
    expect(g.ok).toBe(false);
    if (!g.ok) expect(g.error.message).toMatch(why);
  });

  test("size and rule-count bounds", () => {
    const big = parseUserGrammar(`root ::= "${"a".repeat(USER_GRAMMAR_LIMITS.bytes)}"`);
    expect(!big.ok && big.error.code).toBe("too_large");
    const many = parseUserGrammar(["root ::= r0", ...Array.from({ length: USER_GRAMMAR_LIMITS.rules + 1 }, (_, i) => `r${i} ::= "a"`)].join("\n"));
    expect(!many.ok && many.error.code).toBe("too_large");
  });
});

describe("printUserGrammar", () => {
  test("rules get fresh names beside the turn's own, and classes lose '<'", () => {
    const rules = new RuleSet();
    rules.add("answer-root", '"taken"');
    const root = printUserGrammar(rules, parsed('root ::= item+\nitem ::= [<a-c] | "d"'));
    const text = rules.print(root).text;
    expect(root).not.toBe("answer-root");
    expect(text).toMatch(/^answer-item ::= \(\[a-c\] \| "d"\)$/m);
    expect(text).toMatch(new RegExp(`^${root} ::= answer-item\\{1,\\}$`, "m"));
    expect(text).not.toContain("<");
  });
});
