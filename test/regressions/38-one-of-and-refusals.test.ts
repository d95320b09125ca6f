// Issue 38: an overlapping `oneOf` (exactly one branch) was refused under `strict` and relaxed to `anyOf` under
// `validate`, where a value matching two branches fails validation. Where `not` can say "this branch and none of the
// others" it is now held exactly. And the semantic keywords the grammar cannot hold (uniqueItems over strings,
// propertyNames by length, …) are refused under every policy, naming the keyword, instead of being left to the
// validator (under `validate` they used to produce calls that could fail it).
import { describe, expect, test } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { expectValidEverySeed, useTinyRuntime } from "../helpers/seeded-calls.js";

const rt = useTinyRuntime();

const SCHEMAS = {
  "oneOf of two enums sharing a value": { type: "object", properties: { v: { oneOf: [{ enum: [1, 2, 3] }, { enum: [3, 4] }] } }, required: ["v"], additionalProperties: false },
  "oneOf of two required members": {
    type: "object",
    properties: { a: { type: "integer", minimum: 0, maximum: 9 }, b: { type: "integer", minimum: 0, maximum: 9 } },
    oneOf: [{ required: ["a"] }, { required: ["b"] }],
    additionalProperties: false,
  },
};

describe("issue 38: overlapping oneOf held exactly; what cannot be held is refused under every policy", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`${name}: compiled under strict, 20 seeds valid`, async () => {
      await expectValidEverySeed(rt(), schema);
    }, 600_000);
  }

  test.each([
    // uniqueItems over strings is held since issue 49 by the engine's semantic state (test/runtime/engine/distinct-items.test.ts).
    ["propertyNames by length", { type: "object", propertyNames: { maxLength: 3 } }, "/propertyNames"],
    ["contains beside uniqueItems", { type: "object", properties: { a: { type: "array", items: { type: "string" }, uniqueItems: true, contains: { const: "x" } } } }, "/properties/a/contains"],
    ["minProperties beside optional members", { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, minProperties: 2 }, "/minProperties"],
  ])("%s: refused under validate as under strict, naming the keyword", (_, schema, path) => {
    for (const unsupported of ["strict", "validate"] as const) {
      const r = compileToolGrammar([{ name: "t", parameters: schema }], { toolChoice: "required", unsupported });
      expect(r.ok ? "compiled" : [r.error.code, r.error.path], unsupported).toEqual(["unsupported_keyword", path]);
    }
  });
});
