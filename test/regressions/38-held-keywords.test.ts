// Issue 38: keywords the grammar did not hold became invalid calls under the default `validate` policy (the
// constrained turn ended with a `schema` error). `propertyNames: {enum: [...]}` is now held by listing exactly
// those names, and `uniqueItems` over a few literal values by listing every array of distinct values. Constrained,
// tool choice required, default options: every seed gives a valid call, checked independently with ajv.
import { describe, expect, test } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { expectValidEverySeed, useTinyRuntime } from "../helpers/seeded-calls.js";

const rt = useTinyRuntime();

const SCHEMAS = {
  "propertyNames enum beside additionalProperties": {
    type: "object",
    propertyNames: { enum: ["a", "b", "c"] },
    additionalProperties: { type: "integer", minimum: 0, maximum: 99 },
  },
  "minProperties 3 over patternProperties ^k[0-2]$": {
    type: "object",
    patternProperties: { "^k[0-2]$": { type: "integer", minimum: 0, maximum: 99 } },
    minProperties: 3,
  },
  "uniqueItems over a 3-value enum, minItems 3": {
    type: "object",
    properties: { order: { type: "array", items: { enum: ["x", "y", "z"] }, uniqueItems: true, minItems: 3 } },
    required: ["order"],
    additionalProperties: false,
  },
};

describe("issue 38: keywords held by the grammar give a valid call every time", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`${name}: compiled under strict (nothing left to the validator), 20 seeds valid`, async () => {
      await expectValidEverySeed(rt(), schema);
    }, 300_000);
  }

  test("propertyNames excludes a listed name it does not allow; a required one makes the schema unsatisfiable", () => {
    const dropped = compileToolGrammar([{ name: "t", parameters: { type: "object", properties: { z: { type: "string" } }, propertyNames: { enum: ["a"] } } }], { toolChoice: "required", unsupported: "strict" });
    expect(dropped.ok && dropped.value.gbnf.includes('\\"z\\"')).toBe(false);
    const never = compileToolGrammar([{ name: "t", parameters: { type: "object", properties: { z: { type: "string" } }, required: ["z"], propertyNames: { enum: ["a"] } } }], { toolChoice: "required", unsupported: "strict" });
    expect(never.ok).toBe(false);
  });
});
