import { describe, expect, it } from "vitest";
import { parseJsonlLine } from "../../src/parse/jsonl.js";
import { compileValidators } from "../../src/tools/index.js";
import { jsonCall, TOOLS } from "./helpers.js";

describe("parseJsonlLine", () => {
  const tools = compileValidators(TOOLS);

  it("parses a line with the default tools, or its own", () => {
    const text = jsonCall("read_file", { path: "a" });
    const a = parseJsonlLine(JSON.stringify({ text }), { tools });
    expect(a.ok && a.value.calls.map((c) => c.name)).toEqual(["read_file"]);
    const b = parseJsonlLine(JSON.stringify({ text, tools: [{ name: "other" }] }), { tools });
    expect(b.ok && b.value.errors.map((e) => e.reason)).toEqual(["unknown_tool"]);
    const c = parseJsonlLine(JSON.stringify({ text, tools: null }), { tools });
    expect(c.ok && c.value.calls.length).toBe(1);
    const d = parseJsonlLine(JSON.stringify({ text: text.slice(0, 30), truncated: true }), { tools });
    expect(d.ok && [d.truncated, d.value.errors.map((e) => e.reason)]).toEqual([true, ["truncated"]]);
    const e = parseJsonlLine(JSON.stringify({ text, format: "qwen3coder" }), { tools });
    expect(e.ok && e.value.errors.map((x) => x.reason)).toEqual(["bad_shape"]);
  });

  it("turns a bad line into an error, never a throw", () => {
    for (const line of ["not json", "[1]", '{"text": 5}', '{"text": "x", "format": "xml"}', '{"text": "x", "tools": {}}', '{"text": "x", "tools": [{"name": "bad name"}]}', '{"text": "x", "truncated": "yes"}', '{"text": "x", "thinking": "maybe"}']) {
      const r = parseJsonlLine(line, { tools });
      expect(r.ok).toBe(false);
      expect(typeof (r as { error: string }).error).toBe("string");
    }
  });
});
