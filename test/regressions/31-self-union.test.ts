// Issue 31, item 4 (found by `npm run fuzz:schemas -- --data DIR` on MaskBench's schemas in session 11): a union that
// is its own option (`anyOf: [{$ref: "#"}, …]`) overflowed the stack as tool parameters: the tag check stayed "at
// the top" through the cycle, and taking the object part of the arguments recursed through it without end. Every
// schema compiles or gets a stable error code.

import { describe, expect, it } from "vitest";
import { compileSchema, compileToolGrammar } from "../../src/grammar/index.js";
import type { JsonSchema } from "../../src/tools/types.js";

const STABLE = ["unsupported_keyword", "invalid_schema", "schema_too_large", "unsatisfiable_schema", "budget_too_small"];

const schemas: JsonSchema[] = [
  { anyOf: [{ $ref: "#" }, { type: "null" }] },
  { anyOf: [{ $ref: "#" }, { type: "object", properties: { a: { type: "string" } } }] },
  { oneOf: [{ $ref: "#" }, { type: "string" }] },
];

describe("a union that is its own option (issue 31)", () => {
  for (const schema of schemas) {
    it(`${JSON.stringify(schema)}: compiles or a stable code, as a value and as tool parameters in both formats`, () => {
      const outcomes = [
        compileSchema(schema, { maxTokens: 512 }),
        ...(["hermes", "qwen3coder"] as const).map((format) => compileToolGrammar([{ name: "t", parameters: schema }], { format, maxTokens: 512, toolChoice: "required" })),
      ];
      for (const r of outcomes) expect(r.ok || STABLE.includes(r.error.code)).toBe(true);
    });
  }

  it("the object part of a self-referential union is its object option", () => {
    const r = compileToolGrammar([{ name: "t", parameters: schemas[1]! }], { maxTokens: 512, toolChoice: "required" });
    expect(r.ok && r.value.gbnf.includes('"\\"a\\": "')).toBe(true);
  });
});
