// Issue 31: a keyword the grammar cannot hold refused the whole tool list (Claude Code's 25 tools, for one `allOf`
// of two patterns in SendMessage). Under the default `validate` policy the grammar holds a documented superset,
// the compile reports what it left to the validator, and a call that breaks the keyword is a rejected call with
// the reason, never a returned call. `strict` still refuses with the keyword's pointer.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { parse } from "../../src/parse/index.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { renderCall, tinyModel } from "../grammar/helpers.js";

// SendMessage's shape as Claude Code declares it (a recipient held by two patterns at once), in our own words.
// Claude Code's own two patterns are held exactly since session 21 (their intersection, test/grammar/pattern-automata);
// "…|a.{11}$" (an `a` twelve characters from the end) keeps the pattern past the automaton bounds of regex-dfa.ts
// (2^12 DFA states), so the grammar still cannot hold the keyword.
const sendMessage: ToolDefinition = {
  name: "SendMessage",
  parameters: {
    type: "object",
    properties: {
      to: { type: "string", allOf: [{ pattern: "^[a-z][a-z0-9-]*$" }, { pattern: "^.{1,12}$|a.{11}$" }] },
      text: { type: "string" },
    },
    required: ["to", "text"],
    additionalProperties: false,
  },
};
const pick: ToolDefinition = {
  name: "pick",
  parameters: { type: "object", properties: { color: { type: "string", not: { pattern: "^red|e.{11}$" } } }, required: ["color"], additionalProperties: false },
};

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

describe("the validate policy (issue 31)", () => {
  it("compiles an allOf of two patterns (the default policy), keeping one in the grammar and reporting the other", () => {
    const r = compileToolGrammar([sendMessage, pick], { toolChoice: "required" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.constraint.policy).toBe("validate");
    expect(r.value.constraint.exact).toBe(false);
    expect(r.value.constraint.relaxed.map((s) => [s.tool, s.path])).toEqual([
      ["SendMessage", "/properties/to/allOf/1/pattern"],
      ["pick", "/properties/color/not"],
    ]);
  });

  it("strict refuses the same tools with the keyword's pointer", () => {
    const r = compileToolGrammar([sendMessage], { toolChoice: "required", unsupported: "strict" });
    expect(r.ok ? undefined : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/properties/to/allOf/1/pattern"]);
  });

  for (const format of ["hermes", "qwen3coder"] as const) {
    it(`${format}: the grammar admits a call that breaks the relaxed keyword, and the parser rejects it with the reason`, async () => {
      const r = compileToolGrammar([sendMessage, pick], { toolChoice: "required", format, parallel: false });
      if (!r.ok) throw new Error(r.error.message);
      const checker = await GrammarChecker.create(model, r.value);
      const tooLong = renderCall(format, "SendMessage", { to: "a-very-long-recipient", text: "hi" });
      const red = renderCall(format, "pick", { color: "red" });
      const fine = renderCall(format, "SendMessage", { to: "team-lead", text: "hi" });
      for (const text of [tooLong, red, fine]) expect(checker.checkText(text).accepted).toBe(true);
      const tools = [sendMessage, pick];
      for (const text of [tooLong, red]) {
        const parsed = parse(text, { tools, format });
        expect(parsed.calls).toEqual([]);
        expect(parsed.errors.length).toBe(1);
      }
      expect(parse(fine, { tools, format }).calls.map((c) => c.name)).toEqual(["SendMessage"]);
    });
  }
});
