// Issue 38: `minProperties` beyond the required members with open extra members was refused under `strict` and
// left to the validator under the default `validate` policy, so a required call came back invalid (3 of 3 seeds).
// The grammar now writes at least the missing count of extra members, the key guard keeps their keys distinct, and
// the budget guard's closing (which used to spell the same shortest key each time) writes distinct keys too.
// Constrained, tool choice required, default options: every seed gives a valid call, judged by ajv.
import { describe, expect, test } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { expectValidEverySeed, useTinyRuntime } from "../helpers/seeded-calls.js";

const rt = useTinyRuntime();

const SCHEMAS = {
  "minProperties 6 over additionalProperties (integer)": {
    type: "object",
    additionalProperties: { type: "integer", minimum: 0, maximum: 99 },
    minProperties: 6,
  },
  "minProperties 6 over additionalProperties: true": { type: "object", additionalProperties: true, minProperties: 6 },
  "minProperties 4, maxProperties 5 beside a required property and extra members": {
    type: "object",
    properties: { a: { type: "string", maxLength: 8 } },
    required: ["a"],
    additionalProperties: { type: "boolean" },
    minProperties: 4,
    maxProperties: 5,
  },
  // Session 14: optional listed members beside it (refused before): at least 4 extra members whatever of `a` is written.
  "minProperties 4 beside an optional listed property and extra members": {
    type: "object",
    properties: { a: { type: "string", maxLength: 8 } },
    additionalProperties: { type: "integer" },
    minProperties: 4,
  },
};

describe("issue 38: minProperties with open extra members gives a valid call every time", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`${name}: compiled under strict, 20 seeds valid, no key twice`, async () => {
      await expectValidEverySeed(rt(), schema);
    }, 600_000);
  }

  test("minProperties above maxProperties is unsatisfiable; beside optional listed members, a maximum with no room for the minimum's extra members is refused", () => {
    const never = compileToolGrammar([{ name: "t", parameters: { type: "object", additionalProperties: true, minProperties: 3, maxProperties: 2 } }], { toolChoice: "required", unsupported: "strict" });
    expect(never.ok).toBe(false);
    const tight = compileToolGrammar([{ name: "t", parameters: { type: "object", properties: { a: { type: "string" } }, additionalProperties: true, minProperties: 2, maxProperties: 2 } }], { toolChoice: "required", unsupported: "strict" });
    expect(tight.ok ? "ok" : [tight.error.code, tight.error.path]).toEqual(["unsupported_keyword", "/minProperties"]);
    const roomy = compileToolGrammar([{ name: "t", parameters: { type: "object", properties: { a: { type: "string" } }, additionalProperties: true, minProperties: 2, maxProperties: 3 } }], { toolChoice: "required", unsupported: "strict" });
    expect(roomy.ok && roomy.value.constraint.exact).toBe(true);
  });
});
