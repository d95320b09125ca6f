// Issue 38: keywords the grammar did not hold became invalid calls under the default `validate` policy (the
// constrained turn ended with a `schema` error). `propertyNames: {enum: [...]}` is now held by listing exactly
// those names, and `uniqueItems` over a few literal values by listing every array of distinct values. Constrained,
// tool choice required, default options: every seed gives a valid call, checked independently with ajv.
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
const messages = [{ role: "user" as const, content: "Call the tool." }];

describe("issue 38: keywords held by the grammar give a valid call every time", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`${name}: compiled under strict (nothing left to the validator), 20 seeds valid`, async () => {
      const compiled = compileToolGrammar([{ name: "t", parameters: schema }], { toolChoice: "required", unsupported: "strict" });
      expect(compiled.ok && compiled.value.constraint.exact).toBe(true);
      const valid = new Ajv2020({ strict: false }).compile(schema);
      for (let seed = 0; seed < 20; seed++) {
        const r = await rt.generate({ messages, tools: [{ type: "function", function: { name: "t", parameters: schema } }], toolChoice: "required", seed, maxTokens: 256 });
        expect(r.errors.map((e) => e.reason), `seed ${seed}: ${r.raw}`).toEqual([]);
        expect(r.toolCalls.length, `seed ${seed}`).toBeGreaterThan(0);
        for (const c of r.toolCalls) expect(valid(JSON.parse(c.arguments)), `seed ${seed}: ${c.arguments}`).toBe(true);
      }
    }, 300_000);
  }

  test("propertyNames excludes a listed name it does not allow; a required one makes the schema unsatisfiable", () => {
    const dropped = compileToolGrammar([{ name: "t", parameters: { type: "object", properties: { z: { type: "string" } }, propertyNames: { enum: ["a"] } } }], { toolChoice: "required", unsupported: "strict" });
    expect(dropped.ok && dropped.value.gbnf.includes('\\"z\\"')).toBe(false);
    const never = compileToolGrammar([{ name: "t", parameters: { type: "object", properties: { z: { type: "string" } }, required: ["z"], propertyNames: { enum: ["a"] } } }], { toolChoice: "required", unsupported: "strict" });
    expect(never.ok).toBe(false);
  });
});
