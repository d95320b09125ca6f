// Issue 31, bug 1 and MaskBench's crashes: a `oneOf` whose option is a `$ref` back into the schema being lowered
// threw `internal: unresolved ref` (the disjointness check followed a ref whose target was not lowered yet), and
// a deep oneOf comparison of recursive options could recurse without end. Every such schema now compiles or
// gets a stable error code. Reproductions written for this test (shapes seen in MaskBench's crashing schemas).

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import type { JsonSchema } from "../../src/tools/types.js";

const STABLE = ["unsupported_keyword", "invalid_schema", "schema_too_large", "unsatisfiable_schema", "budget_too_small"];

const cases: [string, JsonSchema][] = [
  ["the issue's minimal schema", { type: "object", properties: { v: { oneOf: [{ type: "string" }, { $ref: "#" }] } } }],
  ["a oneOf in a definition that refers to itself", { $ref: "#/definitions/node", definitions: { node: { oneOf: [{ type: "integer" }, { type: "array", items: { $ref: "#/definitions/node" } }] } } }],
  ["mutual recursion through oneOf", { $defs: { a: { oneOf: [{ type: "null" }, { $ref: "#/$defs/b" }] }, b: { type: "object", properties: { a: { $ref: "#/$defs/a" } }, required: ["a"] } }, $ref: "#/$defs/a" }],
  ["two recursive object options", { $defs: { t: { oneOf: [{ type: "object", properties: { k: { const: 1 }, c: { $ref: "#/$defs/t" } }, required: ["k", "c"] }, { type: "object", properties: { k: { const: 2 }, c: { $ref: "#/$defs/t" } }, required: ["k", "c"] }] } }, $ref: "#/$defs/t" }],
  ["oneOf of a ref and its own target", { $defs: { x: { oneOf: [{ $ref: "#/$defs/x" }, { type: "string" }] } }, $ref: "#/$defs/x" }],
];

describe("oneOf through $ref (issue 31)", () => {
  for (const [what, schema] of cases) {
    it(`${what}: compiles or gets a stable code, never throws`, () => {
      const r = compileSchema(schema, { maxTokens: 512 });
      if (!r.ok) expect(STABLE).toContain(r.error.code);
    });
  }

  it("the minimal schema compiles (string and nested-object options are disjoint)", () => {
    const r = compileSchema(cases[0]![1], { maxTokens: 512 });
    expect(r.ok).toBe(true);
  });
});
