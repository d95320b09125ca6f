// Issue 31, item 2: `not` was refused everywhere. Now `not` of types, of `required`, of enum/const beside an enum,
// of anyOf of those, and `not: {}` are held exactly; any other `not` is still refused by pointer. Judged by
// qtc's constraint engine and by ajv.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { formatsAjv, tinyModel } from "../grammar/helpers.js";

const ajv = formatsAjv();
let model: LlamaModel;
// The model loads in seconds; a machine shared with other jobs may take longer.
beforeAll(async () => {
  ({ model } = await tinyModel());
}, 120_000);

const cases: [string, JsonSchema, unknown[], unknown[]][] = [
  ["not of a type", { not: { type: "number" } }, ["a", null, true, [], {}], [1, 2.5]],
  ["not of types beside a type", { type: ["string", "null", "integer"], not: { type: ["null", "integer"] } }, ["a"], [null, 1]],
  ["not of an enum beside an enum", { enum: ["a", "b", "c"], not: { enum: ["b"] } }, ["a", "c"], ["b", "d"]],
  [
    "mutually exclusive members: not of anyOf of required",
    { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, not: { anyOf: [{ required: ["a", "b"] }] } },
    [{}, { a: 1 }, { b: 2 }],
    [{ a: 1, b: 2 }, "x"],
  ],
  ["not of {}", { not: {} }, [], [1, "a", null]],
];

describe("not (issue 31)", () => {
  for (const [what, schema, valid, invalid] of cases) {
    it(`${what}: valid values accepted, invalid ones rejected, as ajv says`, async () => {
      const values = [...valid, ...invalid];
      const expected = [...valid.map(() => true), ...invalid.map(() => false)];
      const validate = ajv.compile(schema as object);
      expect(values.map((v) => validate(v))).toEqual(expected);
      const r = compileSchema(schema, { maxTokens: 256 });
      if (valid.length === 0) {
        expect(r.ok ? "compiled" : r.error.code).toBe("unsatisfiable_schema");
        return;
      }
      if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
      const c = await GrammarChecker.create(model, r.value);
      expect(values.map((v) => c.checkText(canonicalJson(v)).accepted)).toEqual(expected);
    });
  }

  it("a not the grammar cannot hold is refused by pointer", () => {
    // An `a` twelve characters from the end: past the automaton bounds of regex-dfa.ts (2^12 DFA states).
    const r = compileSchema({ type: "string", not: { pattern: "^a|a.{11}$" } });
    expect(r.ok ? "compiled" : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/not"]);
  });
});
