// Issue 13, item 12: a schema no value can satisfy used to compile to a grammar no call fits, so a request with
// tool choice required returned 200, no content and finish_reason "length". The compiler now refuses it up front
// with `unsatisfiable_schema` at the subschema's pointer, for tools and response schemas alike.

import { describe, expect, it } from "vitest";
import { compileSchema, compileToolGrammar } from "../../src/grammar/index.js";
import type { JsonSchema, ToolDefinition } from "../../src/tools/types.js";

const obj = (a: unknown): JsonSchema => ({ type: "object", properties: { a }, required: ["a"] });
const cases: [string, unknown, string][] = [
  ["minimum above maximum", { type: "integer", minimum: 10, maximum: 1 }, "/properties/a"],
  ["an empty numeric range", { type: "number", exclusiveMinimum: 1, maximum: 1 }, "/properties/a"],
  ["minLength above maxLength", { type: "string", minLength: 5, maxLength: 2 }, "/properties/a"],
  ["minItems above maxItems", { type: "array", minItems: 3, maxItems: 1 }, "/properties/a"],
  ["an empty enum", { enum: [] }, "/properties/a"],
  ["a const that contradicts its type", { type: "string", const: 3 }, "/properties/a"],
  ["a required property that is false", false, "/properties/a"],
  ["more tuple items required than allowed", { type: "array", prefixItems: [{ type: "string" }], items: false, minItems: 2 }, "/properties/a"],
  ["a required item that is unsatisfiable", { type: "array", items: { type: "integer", minimum: 3, maximum: 2 }, minItems: 1 }, "/properties/a/items"],
  ["every anyOf branch unsatisfiable", { anyOf: [{ enum: [] }, { type: "string", minLength: 2, maxLength: 1 }] }, "/properties/a"],
  ["a required member of a nested object", { type: "object", properties: { b: { type: "integer", minimum: 1, maximum: 0 } }, required: ["b"] }, "/properties/a/properties/b"],
];

describe("unsatisfiable schemas", () => {
  for (const [what, a, path] of cases) {
    it(`refuses ${what} in a tool (required) and in a response schema`, () => {
      const tools: ToolDefinition[] = [{ name: "t", parameters: obj(a) }];
      const r = compileToolGrammar(tools, { toolChoice: "required" });
      expect(r.ok ? "ok" : [r.error.code, r.error.path]).toEqual(["unsatisfiable_schema", path]);
      const s = compileSchema(obj(a));
      expect(s.ok ? "ok" : [s.error.code, s.error.path]).toEqual(["unsatisfiable_schema", path]);
      const answer = compileToolGrammar([], { toolChoice: "none", answerSchema: obj(a) });
      expect(answer.ok ? "ok" : [answer.error.code, answer.error.path]).toEqual(["unsatisfiable_schema", path]);
    });
  }

  it("still compiles an unsatisfiable optional property (it is never written) and a satisfiable anyOf branch", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { a: { type: "integer", minimum: 5, maximum: 1 }, b: { anyOf: [{ enum: [] }, { type: "boolean" }] } },
      required: ["b"],
    };
    const r = compileToolGrammar([{ name: "t", parameters: schema }], { toolChoice: "required" });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.gbnf).not.toContain('"\\"a\\": "');
  });
});
