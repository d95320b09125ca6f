// contains / minContains / maxContains held by the rewrite (src/grammar/contains.ts): every array the grammar
// admits is valid (judged by ajv), over every array of up to 4 items from a small alphabet; and the rewrite's
// documented shape (matching items first) is what it admits.

import { Ajv2020 } from "ajv/dist/2020.js";
import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { planContains } from "../../src/grammar/contains.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { tinyModel } from "./helpers.js";

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

/** Every array of 0..4 items drawn from `alphabet`. */
function arrays(alphabet: readonly unknown[]): unknown[][] {
  const out: unknown[][] = [[]];
  let layer: unknown[][] = [[]];
  for (let n = 1; n <= 4; n++) {
    layer = layer.flatMap((a) => alphabet.map((x) => [...a, x]));
    out.push(...layer);
  }
  return out;
}

const CASES: [string, JsonSchema, unknown[]][] = [
  ["contains a const, minContains 2", { type: "array", items: { type: "integer", minimum: 0, maximum: 9 }, contains: { const: 7 }, minContains: 2 }, [1, 7]],
  ["contains from an enum, maxContains 1", { type: "array", items: { enum: ["a", "b"] }, contains: { const: "a" }, maxContains: 1 }, ["a", "b"]],
  ["contains a bound, minContains 1, maxContains 2", { type: "array", items: { type: "integer", minimum: 0, maximum: 20 }, contains: { minimum: 10 }, maxContains: 2 }, [3, 12]],
  ["minContains 0 and maxContains 0 beside an enum (no matching item)", { type: "array", items: { enum: [1, 2] }, contains: { const: 2 }, minContains: 0, maxContains: 0 }, [1, 2]],
];

describe("contains", () => {
  for (const [what, schema, alphabet] of CASES) {
    it(`${what}: every admitted array is valid, and one is admitted`, async () => {
      const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
      if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
      const c = await GrammarChecker.create(model, r.value);
      const valid = new Ajv2020({ strict: false }).compile(schema);
      let admitted = 0;
      for (const a of arrays(alphabet)) {
        const text = JSON.stringify(a).replace(/,/g, ", ");
        if (!c.checkText(text).accepted) continue;
        admitted++;
        expect(valid(a), text).toBe(true);
      }
      expect(admitted).toBeGreaterThan(0);
    });
  }

  it("admits matching items first: [7, 7, 1] is written, [1, 7, 7] (valid too) is not (a documented subset)", async () => {
    const schema = CASES[0]![1];
    const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
    if (!r.ok) throw new Error(r.error.message);
    const c = await GrammarChecker.create(model, r.value);
    expect(c.checkText("[7, 7, 1]").accepted).toBe(true);
    expect(c.checkText("[1, 7, 7]").accepted).toBe(false);
  });

  it("an untyped schema's contains constrains its arrays only", async () => {
    const schema = { contains: { const: 7 } };
    const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
    if (!r.ok) throw new Error(r.error.message);
    const c = await GrammarChecker.create(model, r.value);
    for (const [text, ok] of [["[7]", true], ["[1]", false], ["[]", false], ['"x"', true], ["3", true]] as const) expect(c.checkText(text).accepted, text).toBe(ok);
  });

  it("plans nothing without contains; refuses a bad count at its pointer", () => {
    expect(planContains({ type: "array", minContains: 2 }, "")).toBeUndefined();
    expect(planContains({ type: "array", contains: {}, minContains: -1 }, "/a")).toMatchObject({ code: "invalid_schema", path: "/a/minContains" });
  });
});
