// Issue 31: keywords that constrain nothing (draft-04 `id`, vendor extensions such as `javaType`, `_format`,
// `readonly`, `links`) were refused as "not supported"; JSON Schema says a validator ignores them. They are now
// ignored, and the compile reports each one by pointer in `constraint.ignored`.

import { describe, expect, it } from "vitest";
import { compileSchema, compileToolGrammar } from "../../src/grammar/index.js";

const schema = {
  id: "http://example.com/s",
  javaType: "com.example.S",
  type: "object",
  properties: { a: { type: "string", _format: "text", readonly: true }, b: { type: "integer", links: [] } },
  additionalProperties: false,
};

describe("annotation-only keywords (issue 31)", () => {
  it("compile, each reported once by pointer", () => {
    const r = compileSchema(schema, { maxTokens: 256 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.constraint.ignored.map((s) => s.path).sort()).toEqual(["/javaType", "/properties/a/_format", "/properties/a/readonly", "/properties/b/links"]);
    expect(r.value.constraint.exact).toBe(true);
  });

  it("leave the grammar exactly as without them", () => {
    const plain = { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, additionalProperties: false };
    const a = compileSchema(schema, { maxTokens: 256 });
    const b = compileSchema(plain, { maxTokens: 256 });
    expect(a.ok && b.ok && a.value.constraint.grammarHash === b.value.constraint.grammarHash).toBe(true);
  });

  it("do not refuse a tool, under either policy", () => {
    for (const unsupported of ["strict", "validate"] as const) {
      expect(compileToolGrammar([{ name: "t", parameters: schema }], { unsupported }).ok).toBe(true);
    }
  });
});
