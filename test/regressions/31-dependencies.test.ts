// Issue 31, item 2: `dependentRequired`, `dependentSchemas` and draft-04's `dependencies` were refused. Now an
// object schema with dependencies is the union of its variants ("A absent" | "A present with what it demands"),
// which is exact. Judged by qtc's constraint engine and by ajv.

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
  [
    "dependentRequired",
    { type: "object", properties: { card: { type: "string" }, billing: { type: "string" }, name: { type: "string" } }, dependentRequired: { card: ["billing"] } },
    [{}, { name: "a" }, { card: "1", billing: "x" }, { billing: "x" }],
    [{ card: "1" }, { card: "1", name: "a" }],
  ],
  [
    "dependencies with names and with a schema (draft-04)",
    { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, additionalProperties: false, dependencies: { a: ["b"], b: { properties: { a: { minimum: 10 } } } } },
    [{}, { a: 10, b: 1 }, { b: 1 }],
    [{ a: 1 }, { a: 1, b: 1 }, { c: 1 }],
  ],
];

describe("dependencies (issue 31)", () => {
  for (const [what, schema, valid, invalid] of cases) {
    it(`${what}: valid values accepted, invalid ones rejected, as ajv says`, async () => {
      const r = compileSchema(schema, { maxTokens: 512 });
      if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
      const c = await GrammarChecker.create(model, r.value);
      const validate = ajv.compile(schema as object);
      const values = [...valid, ...invalid];
      const expected = [...valid.map(() => true), ...invalid.map(() => false)];
      expect(values.map((v) => validate(v))).toEqual(expected);
      expect(values.map((v) => c.checkText(canonicalJson(v)).accepted)).toEqual(expected);
    });
  }
});
