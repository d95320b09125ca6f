// `not` beyond types and required (src/grammar/not.ts, not-values.ts; issue 49's MaskBench coverage): `not` of a
// $ref, of enum/const beside a schema that is no enum, of a class-repeat pattern, of items, of dependencies, of
// oneOf, of properties with additionalProperties false, and of several of these at once. Each schema's grammar admits exactly the values ajv calls valid, over a list of
// candidates of every kind (items through contains: every admitted value is valid, and the listed ones admitted).

import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { judgeTextWithGbnf } from "../../src/engine/text-judge.js";
import type { JsonSchema } from "../../src/tools/types.js";

const SCALARS: unknown[] = [null, true, false, 0, 1, -1, 2, 3, 4, 5, 6, 2.5, -7.25, 100, "", "a", "b", "ab", "abc", "abd", "ba", "x", "xyz", "a b", "--", "-", "(.)", ". x", "\n", "é"];
const OBJECTS: unknown[] = [{}, { a: 1 }, { b: "x" }, { a: 1, b: "x" }, { a: "s" }, { a: 1, c: true }, { a: "s", b: 2, c: null }];
const ARRAYS: unknown[] = [[], [1], ["a"], [1, 2], [1, "a"], ["a", "b"], [null], [1, 2, 3], [3, "x", 1]];
const CANDIDATES = [...SCALARS, ...OBJECTS, ...ARRAYS];

function compiled(schema: JsonSchema): string {
  const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
  return r.value.gbnf;
}

/**
 * [what, schema, exact: the grammar admits every valid candidate too]. Not exact: items (contains writes the
 * breaking item first) and members required by a rewrite (written before the extra members, as the runtime's
 * canonical order has them: `{"a", "b", "c"}` with a and c required is spelled a, c, b).
 */
const CASES: [string, JsonSchema, boolean][] = [
  ["not of a $ref (an enum)", { definitions: { ab: { enum: ["a", "b"] } }, type: "string", not: { $ref: "#/definitions/ab" } }, true],
  ["not of a $ref to a $ref (a type)", { definitions: { s: { $ref: "#/definitions/t" }, t: { type: "string" } }, not: { $ref: "#/definitions/s" } }, true],
  ["not of enum beside a string type", { type: "string", not: { enum: ["a", "ab", "abc", ""] } }, true],
  ["not of const beside a string type with bounds", { type: "string", maxLength: 2, not: { const: "ab" } }, true],
  ["not of enum beside a string type with both bounds", { type: "string", minLength: 1, maxLength: 3, not: { enum: ["a", "abc", "x"] } }, true],
  ["not of enum beside integers (the intervals between)", { type: "integer", minimum: 0, maximum: 6, not: { enum: [2, 4, 5] } }, true],
  ["not of enum beside numbers", { type: "number", not: { enum: [0, 2.5, 100] } }, true],
  ["not of enum over every type (booleans, null, strings, numbers)", { not: { enum: [true, null, "a", 1] } }, true],
  ["not of enum holding arrays of at most one item", { type: "array", items: { type: ["integer", "string"] }, not: { enum: [[], [1], ["a"]] } }, true],
  ["not of enum holding an array and a string, over every type", { not: { enum: [["a"], "a"] } }, true],
  ["not of a class-repeat pattern", { type: "string", minLength: 1, not: { pattern: "^[.,\\s()-]+$" } }, true],
  ["not of a bounded class-repeat pattern", { type: "string", not: { pattern: "^[a-c]{1,2}$" } }, true],
  ["not of type and pattern at once", { not: { type: "string", pattern: "^[ab]+$" } }, true],
  ["not of dependencies (a list)", { type: "object", properties: { a: {}, b: {}, c: {} }, additionalProperties: false, not: { dependencies: { a: ["b"] } } }, true],
  ["not of dependencies (a schema)", { type: "object", properties: { a: {}, b: {}, c: {} }, additionalProperties: false, not: { dependencies: { a: { required: ["c"] } } } }, true],
  ["not of type and items (an item that breaks it)", { type: "array", maxItems: 3, items: { type: ["integer", "string"] }, not: { type: "array", items: { type: "integer" } } }, false],
  ["not of oneOf (none, or two at once)", { type: "integer", minimum: 0, maximum: 6, not: { oneOf: [{ minimum: 3 }, { maximum: 4 }, { const: 6 }] } }, true],
  ["not of properties with additionalProperties false beside an open object", { type: "object", properties: { a: { type: "integer" } }, not: { properties: { a: { type: "integer" } }, additionalProperties: false } }, true],
  ["not of type, properties and additionalProperties false beside a closed object", { type: "object", properties: { a: { type: "integer" }, c: {} }, additionalProperties: false, not: { type: "object", properties: { a: {} }, additionalProperties: false } }, true],
  ["oneOf of closed objects that overlap in {}", { oneOf: [{ type: "object", properties: { a: { type: "integer" } }, additionalProperties: false }, { type: "object", properties: { b: { type: "string" } }, additionalProperties: false }] }, true],
  ["not of propertyNames: not of an enum (one of those keys present)", { type: "object", not: { propertyNames: { not: { enum: ["a", "c"] } } } }, true],
  ["not of propertyNames false (not empty)", { type: "object", properties: { a: { type: "integer" } }, not: { propertyNames: false } }, true],
  ["not of propertyNames: an enum (a key outside it)", { type: "object", properties: { a: {}, b: {} }, not: { propertyNames: { enum: ["a"] } } }, true],
  ["not of anyOf of propertyNames, alike options negated once", { type: "object", not: { anyOf: [{ propertyNames: { not: { enum: ["a", "b"] } } }, { propertyNames: { not: { const: "c" } } }, { propertyNames: { not: { enum: ["a", "b"] } } }] } }, false],
  ["oneOf whose options overlap, held through not of their $refs", { definitions: { a: { type: "object", required: ["a"], properties: { a: { type: "string" } } }, b: { type: "object", required: ["b"] } }, oneOf: [{ $ref: "#/definitions/a" }, { $ref: "#/definitions/b" }] }, true],
];

describe("not of $ref, enum/const, class-repeat patterns, items and dependencies (issue 49)", () => {
  for (const [what, schema, exact] of CASES) {
    it(`${what}: the grammar admits ${exact ? "exactly" : "only"} the values ajv calls valid`, () => {
      const gbnf = compiled(schema);
      const valid = new Ajv({ strict: false }).compile(schema);
      let admitted = 0;
      for (const v of CANDIDATES) {
        const text = canonicalJson(v);
        const admits = judgeTextWithGbnf(gbnf, text) === "accepted";
        if (admits) admitted++;
        if (admits || exact) expect(admits, text).toBe(valid(v));
      }
      expect(admitted).toBeGreaterThan(0);
    });
  }

  it("not of items admits an array whose breaking item comes first", () => {
    const gbnf = compiled(CASES.find(([w]) => w.includes("items"))![1]);
    expect(judgeTextWithGbnf(gbnf, canonicalJson(["x", 1]))).toBe("accepted");
    expect(judgeTextWithGbnf(gbnf, canonicalJson([1, 2]))).toBe("rejected");
  });

  it("not of a recursive $ref is refused by pointer as unsupported, not unfolded without end", () => {
    const schema = { definitions: { tree: { type: "object", properties: { kid: { $ref: "#/definitions/tree" } }, required: ["kid"] } }, properties: { t: { not: { $ref: "#/definitions/tree" } } } };
    const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
    // Either held exactly (the negation stops where a member is missing) or refused as unsupported.
    if (r.ok) {
      const valid = new Ajv({ strict: false }).compile(schema);
      for (const v of [{ t: {} }, { t: { kid: {} } }, { t: 1 }, {}]) expect(judgeTextWithGbnf(r.value.gbnf, canonicalJson(v)) === "accepted", JSON.stringify(v)).toBe(valid(v));
    } else expect(r.error.code).toBe("unsupported_keyword");
  });

  it("not of enum holding an object beside an untyped schema is refused at not", () => {
    expect(compileSchema({ not: { enum: [{ a: 1 }] } }, { unsupported: "strict" })).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/not" } });
  });
});
