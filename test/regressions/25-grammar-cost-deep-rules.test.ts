// Claude Code's 24 tools at the budget a 32k context leaves (~14k tokens): the grammar's budget-unrolled rules
// chain deeper than the call stack, and the cost bound's walk over them threw RangeError (a 500 to the client).

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { callForcedUnits, checkGrammarCost } from "../../src/engine/grammar-cost.js";
import { normalizeTools } from "../../src/tools/normalize.js";

const claudeCode = JSON.parse(readFileSync(new URL("../fixtures/clients/claude-code.json", import.meta.url), "utf8")) as { tools: unknown[] };

describe("the grammar cost bound on deep rule chains", () => {
  test("Claude Code's tools at max_tokens 13,981: the bound is computed, not a stack overflow", () => {
    const compiled = compileToolGrammar(normalizeTools(claudeCode.tools as never), { toolChoice: "required", maxTokens: 13_981 });
    if (!compiled.ok) throw new Error(compiled.error.message);
    expect(() => checkGrammarCost(compiled.value)).not.toThrow();
    expect(callForcedUnits(compiled.value)).toBeLessThan(64);
  });

  test("a chain of 50,000 rules: each link's minimum counts once", () => {
    const links = Array.from({ length: 50_000 }, (_, i) => `r${i} ::= "a"{2} r${i + 1}`);
    const gbnf = ["root ::= tool-f-call", "tool-f-call ::= r0", ...links, `r50000 ::= "b"`].join("\n");
    expect(callForcedUnits({ gbnf })).toBe(100_000);
  });

  test("recursion adds nothing to the shortest form; an alternative counts its cheapest branch", () => {
    const gbnf = ['root ::= tool-f-call', 'tool-f-call ::= v', 'v ::= "x"{3} v? | w{5}', 'w ::= "y"{2}'].join("\n");
    expect(callForcedUnits({ gbnf })).toBe(3);
  });
});
