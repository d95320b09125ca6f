// Issue 38: `contains` / `minContains` / `maxContains` were not held by the grammar: refused under `strict`, and
// under the default `validate` policy left to the validator, so a required call could come back invalid. They are
// now held by a rewrite (the first minContains items match, then any items, or items that do not match under a
// maxContains). Constrained, tool choice required, default options: every seed gives a valid call (ajv judges).
import { describe, expect, test } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { expectValidEverySeed, useTinyRuntime } from "../helpers/seeded-calls.js";

const rt = useTinyRuntime();

const arrayOf = (xs: Record<string, unknown>) => ({ type: "object", properties: { xs: { type: "array", ...xs } }, required: ["xs"], additionalProperties: false });
const SCHEMAS = {
  "contains {const: 7}, minContains 2, items integer": arrayOf({ items: { type: "integer" }, contains: { const: 7 }, minContains: 2 }),
  "contains {minimum: 10}, minContains 2, maxContains 3, items integer": arrayOf({ items: { type: "integer" }, contains: { minimum: 10 }, minContains: 2, maxContains: 3 }),
  "contains {const: a}, maxContains 1, items from an enum": arrayOf({ items: { enum: ["a", "b", "c"] }, contains: { const: "a" }, maxContains: 1, minItems: 2 }),
};

describe("issue 38: contains gives a valid call every time", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`${name}: compiled under strict, 20 seeds valid`, async () => {
      await expectValidEverySeed(rt(), schema);
    }, 600_000);
  }

  test("contains no item can match is unsatisfiable, named at contains; beside uniqueItems it is refused (beside prefixItems it is held since issue 49)", () => {
    const never = compileToolGrammar([{ name: "t", parameters: arrayOf({ items: { type: "string" }, contains: { type: "integer" } }) }], { toolChoice: "required", unsupported: "strict" });
    expect(never.ok ? undefined : never.error.path).toBe("/properties/xs/contains");
    const unique = compileToolGrammar([{ name: "t", parameters: arrayOf({ items: { type: "integer" }, uniqueItems: true, contains: { const: 7 } }) }], { toolChoice: "required", unsupported: "strict" });
    expect(unique.ok ? undefined : unique.error).toMatchObject({ code: "unsupported_keyword", path: "/properties/xs/contains" });
  });
});
