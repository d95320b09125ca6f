// Issue 31, item 2: `if`/`then`/`else` was refused. Now it is the union (if and then) | (not if, and else), exact
// where `not if` is (a const discriminator, a type, required members). Judged by qtc's constraint engine and
// by ajv; an `if` whose negation the grammar cannot hold is refused at /if.

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
    "a const discriminator",
    {
      type: "object",
      properties: { kind: { enum: ["file", "url"] }, path: { type: "string" }, href: { type: "string" } },
      required: ["kind"],
      additionalProperties: false,
      if: { properties: { kind: { const: "file" } } },
      then: { required: ["path"] },
      else: { required: ["href"] },
    },
    [{ kind: "file", path: "a" }, { kind: "url", href: "h" }, { kind: "url", path: "p", href: "h" }],
    [{ kind: "file" }, { kind: "url", path: "p" }, { kind: "other", href: "h" }],
  ],
  [
    "if on required members",
    { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, if: { required: ["a"] }, then: { required: ["b"] } },
    [{}, { b: 1 }, { a: 1, b: 2 }],
    [{ a: 1 }],
  ],
];

describe("if/then/else (issue 31)", () => {
  for (const [what, schema, valid, invalid] of cases) {
    it(`${what}: valid values accepted, invalid ones rejected, as ajv says`, async () => {
      const values = [...valid, ...invalid];
      const expected = [...valid.map(() => true), ...invalid.map(() => false)];
      const validate = ajv.compile(schema as object);
      expect(values.map((v) => validate(v))).toEqual(expected);
      const r = compileSchema(schema, { maxTokens: 512 });
      if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
      const c = await GrammarChecker.create(model, r.value);
      expect(values.map((v) => c.checkText(canonicalJson(v)).accepted)).toEqual(expected);
    });
  }

  it("an if whose negation the grammar cannot hold is refused at /if", () => {
    // "…|a.{11}$" (an `a` twelve characters from the end) keeps the pattern past the automaton bounds of regex-dfa.ts
    // (2^12 DFA states), so the grammar still cannot hold the keyword.
    const r = compileSchema({ type: "string", if: { pattern: "^a|a.{11}$" }, then: { maxLength: 3 } });
    expect(r.ok ? "compiled" : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/if"]);
  });
});
