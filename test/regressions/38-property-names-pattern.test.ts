// Issue 38: `propertyNames` other than a list of names was not held: a key pattern, or Claude Code's
// `{type: "string"}` (which every key satisfies), were left to the validator under `validate` and refused under
// `strict`. A key pattern now makes the extra members that pattern's members (the key guard keeps them distinct);
// `{type: "string"}` is dropped as saying nothing. Constrained, tool choice required, default options: 20 seeds valid.
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
  "propertyNames pattern beside additionalProperties, minProperties 2": {
    type: "object",
    propertyNames: { pattern: "^[a-c][0-9]$" },
    additionalProperties: { type: "integer", minimum: 0, maximum: 9 },
    minProperties: 2,
  },
  "propertyNames {type: string} (Claude Code's metadata)": {
    type: "object",
    properties: { metadata: { type: "object", propertyNames: { type: "string" }, additionalProperties: {} } },
    required: ["metadata"],
    additionalProperties: false,
  },
};
const messages = [{ role: "user" as const, content: "Call the tool." }];

describe("issue 38: propertyNames beyond a list of names gives a valid call every time", () => {
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
});
