// Issue 38: an overlapping `oneOf` (exactly one branch) was refused under `strict` and relaxed to `anyOf` under
// `validate`, where a value matching two branches fails validation. Where `not` can say "this branch and none of the
// others" it is now held exactly. And the semantic keywords the grammar cannot hold (uniqueItems over strings,
// propertyNames by length, …) are refused under every policy, naming the keyword, instead of being left to the
// validator (under `validate` they used to produce calls that could fail it).
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

const SCHEMAS = {
  "oneOf of two enums sharing a value": { type: "object", properties: { v: { oneOf: [{ enum: [1, 2, 3] }, { enum: [3, 4] }] } }, required: ["v"], additionalProperties: false },
  "oneOf of two required members": {
    type: "object",
    properties: { a: { type: "integer", minimum: 0, maximum: 9 }, b: { type: "integer", minimum: 0, maximum: 9 } },
    oneOf: [{ required: ["a"] }, { required: ["b"] }],
    additionalProperties: false,
  },
};
const messages = [{ role: "user" as const, content: "Call the tool." }];

describe("issue 38: overlapping oneOf held exactly; what cannot be held is refused under every policy", () => {
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

  test.each([
    ["uniqueItems over strings", { type: "object", properties: { a: { type: "array", items: { type: "string" }, uniqueItems: true } } }, "/properties/a/uniqueItems"],
    ["propertyNames by length", { type: "object", propertyNames: { maxLength: 3 } }, "/propertyNames"],
    ["contains beside prefixItems", { type: "object", properties: { a: { type: "array", prefixItems: [{ type: "string" }], contains: { const: "x" } } } }, "/properties/a/contains"],
    ["minProperties beside optional members", { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, minProperties: 2 }, "/minProperties"],
  ])("%s: refused under validate as under strict, naming the keyword", (_, schema, path) => {
    for (const unsupported of ["strict", "validate"] as const) {
      const r = compileToolGrammar([{ name: "t", parameters: schema }], { toolChoice: "required", unsupported });
      expect(r.ok ? "compiled" : [r.error.code, r.error.path], unsupported).toEqual(["unsupported_keyword", path]);
    }
  });
});
