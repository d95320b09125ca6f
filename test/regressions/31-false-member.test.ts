// Issue 31 (found on the way): an optional member whose schema is `false` was dropped from the object's listed
// names, so the extra-key rule could spell it: `{"properties": {"a": false}}` with extra members allowed (JSON
// Schema's default) admitted `{"a": 1}`, which ajv rejects. The name now stays listed and is never written.

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

describe("a member that is false (issue 31)", () => {
  for (const budgetSplit of ["worst-case", "shared"] as const) {
    it(`${budgetSplit}: an extra key never spells the forbidden name`, async () => {
      const schema: JsonSchema = { type: "object", properties: { a: false, b: { type: "integer" } } };
      const values = [{ b: 1 }, { c: 1 }, { a: 1 }, { b: 1, a: "x" }];
      const r = compileSchema(schema, { maxTokens: 256, budgetSplit });
      if (!r.ok) throw new Error(r.error.message);
      const c = await GrammarChecker.create(model, r.value);
      const validate = ajv.compile(schema as object);
      expect(values.map((v) => validate(v))).toEqual([true, true, false, false]);
      expect(values.map((v) => c.checkText(canonicalJson(v)).accepted)).toEqual([true, true, false, false]);
    });
  }
});
