// Issue 31, item 2: `patternProperties` was refused (31 of the 595 sampled MaskBench schemas). Now extra members
// whose key matches a pattern get that pattern's schema, listed members that match one also satisfy it, and keys
// the extra-key rule spells satisfy additionalProperties and every pattern's schema at once (the subset the
// grammar can spell without a regex complement). Judged by qtc's constraint engine and by ajv.

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

async function verdicts(schema: JsonSchema, values: unknown[]): Promise<{ grammar: boolean[]; ajv: boolean[] }> {
  const r = compileSchema(schema, { maxTokens: 1024, budgetSplit: "shared" });
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
  const c = await GrammarChecker.create(model, r.value);
  const validate = ajv.compile(schema as object);
  return { grammar: values.map((v) => c.checkText(canonicalJson(v)).accepted), ajv: values.map((v) => validate(v) as boolean) };
}

const cases: [string, JsonSchema, unknown[], unknown[]][] = [
  [
    "one pattern, additionalProperties false (exact)",
    { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false },
    [{}, { "x-a": "s" }, { "x-long-vendor-extension-name-over-24": "t", "x-b": "" }],
    [{ "x-a": 1 }, { y: "s" }, { "x-a": "s", y: "s" }],
  ],
  [
    "two disjoint patterns beside a listed member (exact)",
    { type: "object", properties: { id: { type: "integer" } }, patternProperties: { "^a[0-9]+$": { type: "integer" }, "^b[0-9]+$": { type: "string" } }, additionalProperties: false },
    [{ id: 1 }, { id: 1, a1: 2, b22: "s" }, { b1: "x" }],
    [{ a1: "s" }, { b1: 1 }, { c: 1 }, { a: 1 }, { id: "1" }],
  ],
  [
    "a universal pattern with additionalProperties absent (exact)",
    { type: "object", patternProperties: { ".*": { type: "integer" } } },
    [{}, { a: 1, b: 2 }],
    [{ a: "s" }, { a: 1, b: null }],
  ],
  [
    "a listed member matching a pattern satisfies both",
    { type: "object", properties: { name: { type: "string" } }, patternProperties: { "^[a-z]+$": { maxLength: 3 } } },
    [{ name: "abc" }, { name: "ab", zz: "abc" }],
    [{ name: "abcd" }, { zz: "abcd" }, { name: 1 }],
  ],
];

describe("patternProperties (issue 31)", () => {
  for (const [what, schema, valid, invalid] of cases) {
    it(`${what}: valid values accepted, invalid ones rejected, as ajv says`, async () => {
      const v = await verdicts(schema, [...valid, ...invalid]);
      const expected = [...valid.map(() => true), ...invalid.map(() => false)];
      expect(v.ajv).toEqual(expected);
      expect(v.grammar).toEqual(expected);
    });
  }

  it("a listed name matching a pattern with additionalProperties false: held exactly, the pattern's keys never spell the name (issue 49)", async () => {
    const schema = { type: "object", properties: { ab: {} }, patternProperties: { "^a": { type: "string" } }, additionalProperties: false };
    const valid = [{}, { ab: "x" }, { a: "x" }, { abc: "y" }, { ab: "x", ax: "" }];
    const invalid = [{ ab: 1 }, { abc: 1 }, { b: "x" }, { a: null }];
    const v = await verdicts(schema, [...valid, ...invalid]);
    const expected = [...valid.map(() => true), ...invalid.map(() => false)];
    expect(v.ajv).toEqual(expected);
    expect(v.grammar).toEqual(expected);
  });

  it("a listed name matching a pattern with additionalProperties false, past what the pattern without it proves: refused by pointer, not weakened", () => {
    const r = compileSchema({ type: "object", properties: { docker: {} }, patternProperties: { "^[a-z0-9]([-a-z0-9]{0,48}[a-z0-9])?$": { type: "string" } }, additionalProperties: false });
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/patternProperties"]);
  });
});
