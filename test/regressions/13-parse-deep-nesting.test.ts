// Issue 13, item 11: parse() threw (stack overflow) on invalid JSON nested ~4,800 deep, in the code that locates
// the JSON error. Deep nesting must be a rejected block (`too_large`), never a throw, valid or not, in both
// formats, batch and streaming.
import { describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";
import { counterIds, feedAll, resultOf, TOOLS } from "../parse/helpers.js";

const deep = (n: number, open = "[") => open.repeat(n);
const WRAP = (body: string) => `<tool_call>\n${body}\n</tool_call>`;

const CASES: Array<[string, string]> = [
  ["invalid hermes, 5,000 deep", WRAP(`{"name": "read_file", "arguments": ${deep(5000)}`)],
  ["invalid hermes, 100,000 deep objects", WRAP(`{"name": "read_file", "arguments": ${'{"a":'.repeat(100_000)}`)],
  ["valid hermes, 100,000 deep", WRAP(`{"name": "note", "arguments": {"text": "t", "x": ${deep(100_000)}${"]".repeat(100_000)}}}`)],
  ["qwen3coder JSON body, 50,000 deep", WRAP(`<function=note>\n{"text": "t", "x": ${deep(50_000)}\n</function>`)],
  ["qwen3coder value, 50,000 deep", WRAP(`<function=search>\n<parameter=query>\nq\n</parameter>\n<parameter=filters>\n${deep(50_000, "[{\"a\":")}\n</parameter>\n</function>`)],
];

describe("deeply nested arguments are rejected, never thrown", () => {
  for (const [what, text] of CASES) {
    it(what, () => {
      for (const format of ["auto", "hermes", "qwen3coder"] as const) {
        const r = parse(text, { tools: TOOLS, format, thinking: "closed" });
        expect(r.calls).toEqual([]);
        expect(r.errors).toHaveLength(1);
        if (format === "auto" || (format === "hermes") === !text.includes("<function=")) expect(r.errors[0]!.reason).toBe("too_large");
      }
      const streamed = resultOf(feedAll(text.match(/[\s\S]{1,7}/g)!, { tools: TOOLS, thinking: "closed", newId: counterIds() }));
      expect(streamed.errors.map((e) => e.reason)).toEqual(["too_large"]);
    });
  }

  it("nesting just within the limit is still a call", () => {
    const r = parse(WRAP(`{"name": "note", "arguments": {"text": "t", "x": ${deep(31)}${"]".repeat(31)}}}`), { tools: TOOLS });
    expect(r.errors).toEqual([]);
    expect(r.calls).toHaveLength(1);
  });
});
