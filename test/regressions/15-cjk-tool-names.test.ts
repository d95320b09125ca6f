// Issue 15, class 5: a tool whose name is in CJK (or another script) is a tool everywhere — normalized, compiled
// into a grammar, accepted by the server's request reader — not only in the parser.

import { describe, expect, it } from "vitest";
import { compileToolGrammar } from "../../src/grammar/compile.js";
import { parse } from "../../src/parse/index.js";
import { requireToolName } from "../../src/server/convert-util.js";
import { compileValidators, normalizeTools } from "../../src/tools/index.js";

const tools = normalizeTools([{ name: "查询天气", parameters: { type: "object", properties: { 城市: { type: "string" } }, required: ["城市"] } }]);

describe("tool names beyond ASCII", () => {
  it("compile into a grammar in both formats", () => {
    for (const format of ["hermes", "qwen3coder"] as const) {
      const grammar = compileToolGrammar(tools, { format, toolChoice: "required" });
      expect(grammar.ok, JSON.stringify(grammar)).toBe(true);
    }
  });

  it("are accepted by the server's request reader and still refuse what no API can carry", () => {
    expect(requireToolName("查询天气", "tools[0].name")).toBe("查询天气");
    expect(() => requireToolName("get weather", "tools[0].name")).toThrow();
    expect(() => requireToolName("{{name}}", "tools[0].name")).toThrow();
  });

  it("are parsed as the declared tool", () => {
    const result = parse('<tool_call>\n{"name": "查询天气", "arguments": {"城市": "北京"}}\n</tool_call>', { tools: compileValidators(tools), format: "hermes" });
    expect(result.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([["查询天气", { 城市: "北京" }]]);
  });
});
