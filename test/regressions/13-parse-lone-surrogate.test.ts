// Issue 13, item 11: lone surrogates ("\ud800") passed as valid strings. They cannot be written as UTF-8, so a
// tool would get U+FFFD instead of what the call says: the block is rejected as `invalid_utf8`, whether the
// surrogate is a JSON escape, raw in a JSON string, raw in a qwen3coder value, in a key, or in a Python literal.
import { describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";
import { TOOLS, jsonCall } from "../parse/helpers.js";

const J = (args: string, name = "note") => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;
const X = (param: string, value: string, name = "note") => `<tool_call>\n<function=${name}>\n<parameter=${param}>\n${value}\n</parameter>\n</function>\n</tool_call>`;

const CASES: Array<[string, string]> = [
  ["escaped high surrogate", J('{"text": "a\\ud800b"}')],
  ["escaped low surrogate", J('{"text": "\\udc00"}')],
  ["escaped surrogate at the end", J('{"text": "ok\\udbff"}')],
  ["reversed pair", J('{"text": "\\udc00\\ud800"}')],
  ["raw lone surrogate in JSON", J('{"text": "a\ud800"}')],
  ["in a key", J('{"text": "t", "k\\ud800": 1}')],
  ["in a nested array", J('{"text": "t", "x": [["\\udfff"]]}')],
  ["in the name", J('{"text": "t"}', "no\\ud800te")],
  ["qwen3coder raw string value", X("text", "a\ud800b")],
  ["qwen3coder raw low surrogate", X("text", "\udc00")],
  ["qwen3coder JSON-typed value", `<tool_call>\n<function=search>\n<parameter=query>\nq\n</parameter>\n<parameter=filters>\n{"tags": ["\\ud800"]}\n</parameter>\n</function>\n</tool_call>`],
  ["qwen3coder Python literal", `<tool_call>\n<function=search>\n<parameter=query>\nq\n</parameter>\n<parameter=filters>\n{'tags': ['\\ud800']}\n</parameter>\n</function>\n</tool_call>`],
];

describe("lone surrogates are invalid_utf8", () => {
  for (const [what, text] of CASES) {
    it(what, () => {
      // Without tools a qwen3coder value stays its raw text, where an escape is only text: typed cases need tools.
      for (const tools of what.includes("typed") || what.includes("literal") ? [TOOLS] : [TOOLS, undefined]) {
        const r = parse(text, { tools, thinking: "closed" });
        expect(r.calls).toEqual([]);
        expect(r.errors.map((e) => e.reason)).toEqual(["invalid_utf8"]);
      }
    });
  }

  it("a well-formed pair, escaped or raw, is still a call", () => {
    for (const text of [J('{"text": "\\ud83d\\ude00"}'), J('{"text": "😀"}'), X("text", "😀"), jsonCall("note", { text: "é😀" })]) {
      const r = parse(text, { tools: TOOLS });
      expect(r.errors).toEqual([]);
      expect(r.calls).toHaveLength(1);
    }
  });
});
