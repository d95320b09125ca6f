// Issue 31 (found in session 11): patternProperties `^x-|^y-` beside `^y-` were taken to be disjoint, since the first
// alternative's literal prefix `x-` differs from `y-`; a `y-` key then needed only the first pattern's schema, and the
// grammar accepted a value the second pattern forbids. An alternation has no common literal prefix.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { formatsAjv, tinyModel } from "../grammar/helpers.js";

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
}, 120_000);

describe("patternProperties with an alternation (issue 31)", () => {
  it("a key both patterns match satisfies both schemas, under both splits", async () => {
    const schema: JsonSchema = { type: "object", patternProperties: { "^x-|^y-": { type: "string" }, "^y-": { type: "string", maxLength: 2 } }, additionalProperties: false };
    const validate = formatsAjv().compile(schema as object);
    const invalid = { "y-a": "long string" };
    expect(validate(invalid)).toBe(false);
    expect(validate({ "y-a": "ok" })).toBe(true);
    for (const budgetSplit of ["shared", "worst-case"] as const) {
      const r = compileSchema(schema, { maxTokens: 1024, budgetSplit });
      if (!r.ok) throw new Error(r.error.message);
      const checker = await GrammarChecker.create(model, r.value);
      expect(checker.checkText(canonicalJson(invalid)).accepted, budgetSplit).toBe(false);
      expect(checker.checkText(canonicalJson({ "y-a": "ok" })).accepted, budgetSplit).toBe(true);
    }
  });
});
