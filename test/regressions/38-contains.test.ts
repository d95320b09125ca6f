// Issue 38: `contains` / `minContains` / `maxContains` were not held by the grammar: refused under `strict`, and
// under the default `validate` policy left to the validator, so a required call could come back invalid. They are
// now held by a rewrite (the first minContains items match, then any items, or items that do not match under a
// maxContains). Constrained, tool choice required, default options: every seed gives a valid call (ajv judges).
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { createRuntime, type Runtime } from "../../src/index.js";
import { tinyModelPath } from "../helpers/models.js";

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1 });
});
afterAll(async () => {
  await rt?.close();
});

const arrayOf = (xs: Record<string, unknown>) => ({ type: "object", properties: { xs: { type: "array", ...xs } }, required: ["xs"], additionalProperties: false });
const SCHEMAS = {
  "contains {const: 7}, minContains 2, items integer": arrayOf({ items: { type: "integer" }, contains: { const: 7 }, minContains: 2 }),
  "contains {minimum: 10}, minContains 2, maxContains 3, items integer": arrayOf({ items: { type: "integer" }, contains: { minimum: 10 }, minContains: 2, maxContains: 3 }),
  "contains {const: a}, maxContains 1, items from an enum": arrayOf({ items: { enum: ["a", "b", "c"] }, contains: { const: "a" }, maxContains: 1, minItems: 2 }),
};
const messages = [{ role: "user" as const, content: "Call the tool." }];

describe("issue 38: contains gives a valid call every time", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`${name}: compiled under strict, 20 seeds valid`, async () => {
      const compiled = compileToolGrammar([{ name: "t", parameters: schema }], { toolChoice: "required", unsupported: "strict" });
      expect(compiled.ok && compiled.value.constraint.exact).toBe(true);
      const valid = new Ajv2020({ strict: false }).compile(schema);
      for (let seed = 0; seed < 20; seed++) {
        const r = await rt.generate({ messages, tools: [{ type: "function", function: { name: "t", parameters: schema } }], toolChoice: "required", seed, maxTokens: 256 });
        expect(r.errors.map((e) => e.reason), `seed ${seed}: ${r.raw}`).toEqual([]);
        expect(r.toolCalls.length, `seed ${seed}`).toBeGreaterThan(0);
        for (const c of r.toolCalls) expect(valid(JSON.parse(c.arguments)), `seed ${seed}: ${c.arguments}`).toBe(true);
      }
    }, 600_000);
  }

  test("contains no item can match is unsatisfiable, named at contains; beside prefixItems it is refused", () => {
    const never = compileToolGrammar([{ name: "t", parameters: arrayOf({ items: { type: "string" }, contains: { type: "integer" } }) }], { toolChoice: "required", unsupported: "strict" });
    expect(never.ok ? undefined : never.error.path).toBe("/properties/xs/contains");
    const prefixed = compileToolGrammar([{ name: "t", parameters: arrayOf({ prefixItems: [{ type: "string" }], contains: { const: 7 } }) }], { toolChoice: "required", unsupported: "strict" });
    expect(prefixed.ok ? undefined : prefixed.error).toMatchObject({ code: "unsupported_keyword", path: "/properties/xs/contains" });
  });
});
