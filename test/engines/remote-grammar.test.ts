// The grammar a remote GBNF engine (llama-server) runs: with an answer constraint under "auto" it holds the turn
// from the first token (the constraint or calls), not lazily from the open tag.

import { describe, expect, test } from "vitest";
import { remoteGrammar } from "../../src/engines/remote-grammar.js";
import { getFormat } from "../../src/formats/index.js";
import { checkTextConstraint } from "../../src/grammar/answer-constraint.js";
import { GrammarCache } from "../../src/grammar/compile.js";

const TOOLS = [{ name: "lookup", description: "", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }];

describe("remoteGrammar with an answer constraint", () => {
  test("auto: not lazy, and the root is the choice or calls", () => {
    const c = checkTextConstraint({ choice: ["PASS", "FAIL"] });
    if (!c.ok) throw new Error(c.error.message);
    const options = { format: getFormat("hermes"), toolChoice: "auto" as const, parallel: false, maxCalls: 1 };
    const plain = remoteGrammar(TOOLS, options, 256, new GrammarCache());
    const held = remoteGrammar(TOOLS, { ...options, answerConstraint: c.value }, 256, new GrammarCache());
    expect(plain.lazy).toBe(true);
    expect(held.lazy).toBe(false);
    expect(held.gbnf).toMatch(/^root ::= \(answer \| /m);
    expect(held.gbnf).toContain('answer ::= ("PASS" | "FAIL")');
  });
});
