// The combinators issue 38 made the grammar hold, judged instance by instance by qtc's constraint engine
// against the validator: overlapping oneOf as each option without the others, allOf parts that give one keyword
// twice (if, const, not, anyOf, propertyNames), propertyNames folded, a $ref to a plain-name fragment, and a
// required member no key may name.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { agreesWithValidator } from "./helpers.js";

/** Each JSON text: the grammar accepts it exactly when the validator does (budget 512). */
const agrees = (schema: JsonSchema, texts: readonly string[]) => agreesWithValidator(schema, texts, 512);

const num = { type: "integer", minimum: 0, maximum: 9 };

describe("oneOf whose options overlap", () => {
  it("holds each option without the others where their negation can be held", async () => {
    const shape = { type: "object", properties: { r: num, l: num, w: num }, additionalProperties: false };
    await agrees({ ...shape, oneOf: [{ required: ["r"] }, { required: ["l", "w"] }] }, ['{"r": 1}', '{"l": 1, "w": 2}', '{"r": 1, "l": 1, "w": 2}', '{"r": 1, "l": 1}', "{}", '{"l": 1}']);
  });

  it("tells an enum option apart from a pattern none of its values matches", async () => {
    await agrees({ oneOf: [{ type: "string", pattern: "^[0-9]+\\.[0-9]+$" }, { enum: ["alpha", "beta"] }] }, ['"1.2"', '"alpha"', '"gamma"']);
  });

  it("tells string options apart by their patterns (no string matches two of them) and a const by the patterns it fails", async () => {
    // MaskBench's Github_hard---o84383: sizes in megabytes, in gigabytes, or "unlimited".
    const sizes = { oneOf: [{ type: "string", pattern: "^[0-9]+(m|M)(b|B)?$" }, { type: "string", pattern: "^[0-9]+(g|G)(b|B)?$" }, { type: "string", enum: ["unlimited"] }] };
    await agrees(sizes, ['"512M"', '"2gb"', '"unlimited"', '"12"', '"1Mg"', '"unlimitedM"']);
  });

  it("still refuses string options whose patterns share a string (searched patterns, one string matching both)", () => {
    // "an a twelve characters from the end" (2^12 DFA states): its negation is past what regex-dfa.ts builds.
    const r = compileSchema({ oneOf: [{ type: "string", pattern: "^a" }, { type: "string", pattern: "^[ab]*a[ab]{11}$" }] }, { maxTokens: 256 });
    expect(r.ok ? undefined : [r.error.code, r.error.message]).toEqual(["unsupported_keyword", expect.stringContaining("oneOf options 0 and 1 may both match")]);
  });

  it("holds arrays of disjoint items as non-empty arrays (the empty array matches both)", async () => {
    await agrees({ oneOf: [{ type: "array", items: num, maxItems: 3 }, { type: "array", items: { type: "string", maxLength: 3 }, maxItems: 3 }] }, ["[]", "[1, 2]", '["a"]', '[1, "a"]']);
  });

  it("holds options whose negations take more than 16 variants together (addresses told apart by country and state)", async () => {
    const place = (country: string, states: string[]) => ({ properties: { country: { enum: [country] }, state: { enum: states }, zip: { type: "string", maxLength: 3 } } });
    const schema = { type: "object", oneOf: [place("CAN", ["AB", "BC"]), place("MEX", ["col", "dur"]), place("USA", ["AL", "AK"])] };
    expect(compileSchema(schema, { maxTokens: 512, unsupported: "strict" }).ok).toBe(true);
    await agrees(schema, ['{"country": "CAN", "state": "AB"}', '{"country": "USA", "state": "AK", "zip": "123"}', '{"country": "CAN", "state": "AL"}', '{"zip": "1"}', '{"state": "col"}', '{"country": "FRA"}', '{"country": "MEX", "zip": 5}']);
  });

  it("is still refused where a negation cannot be held", () => {
    const r = compileSchema({ oneOf: [{ type: "string", pattern: "ab" }, { type: "string", pattern: "^[ab]*a[ab]{11}$" }] }, { maxTokens: 256 });
    expect(r.ok ? undefined : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/oneOf"]);
  });
});

describe("allOf parts that give one keyword twice", () => {
  it("two if/then/else", async () => {
    const schema = {
      type: "object",
      properties: { a: num, b: num, c: num },
      additionalProperties: false,
      allOf: [{ if: { required: ["a"] }, then: { required: ["b"] } }, { if: { required: ["b"] }, then: { required: ["c"] } }],
    };
    await agrees(schema, ["{}", '{"a": 1}', '{"a": 1, "b": 2}', '{"a": 1, "b": 2, "c": 3}', '{"b": 2, "c": 3}', '{"c": 3}']);
  });

  it("two consts, two nots, two unions", async () => {
    await agrees({ anyOf: [{ allOf: [{ const: 1 }, { const: 2 }] }, { const: 3 }] } as JsonSchema, ["1", "2", "3"]);
    await agrees({ enum: [0, 1, 2, 3], allOf: [{ not: { const: 1 } }, { not: { const: 2 } }] } as JsonSchema, ["0", "1", "2", "3"]);
    await agrees({ ...num, allOf: [{ anyOf: [{ maximum: 3 }, { minimum: 7 }] }, { anyOf: [{ maximum: 1 }, { minimum: 8 }] }] } as JsonSchema, ["0", "1", "2", "7", "8", "9"]);
  });
});

describe("propertyNames", () => {
  it("that says nothing of a key is dropped", async () => {
    await agrees({ type: "object", propertyNames: { type: "string" }, additionalProperties: num }, ["{}", '{"x": 1}', '{"x": "a"}']);
  });

  it("one pattern: the extra members are that pattern's members", async () => {
    await agrees({ type: "object", propertyNames: { pattern: "^[0-9]+$" }, additionalProperties: num }, ["{}", '{"12": 1}', '{"x": 1}', '{"12": "a"}']);
    await agrees({ type: "object", propertyNames: { pattern: "^[0-9]+$" }, patternProperties: { ".*": num } }, ['{"12": 1}', '{"x": 1}']);
  });

  it("that cannot be folded once allOf parts meet is refused, never dropped", () => {
    const r = compileSchema({ type: "object", allOf: [{ propertyNames: { pattern: "^[a-z]+$" } }, { patternProperties: { "^x": num } }] } as JsonSchema, { maxTokens: 256 });
    expect(r.ok ? undefined : r.error.code).toBe("unsupported_keyword");
  });

  it("names meeting patternProperties in an allOf: each name with the patterns it matches", async () => {
    await agrees({ type: "object", allOf: [{ propertyNames: { enum: ["a", "xb"] } }, { patternProperties: { "^x": num } }] } as JsonSchema, ['{"a": "s"}', '{"xb": 1}', '{"xb": "s"}', '{"xc": 1}', "{}"]);
  });

  it("two in an allOf are merged", async () => {
    await agrees({ type: "object", additionalProperties: num, allOf: [{ propertyNames: { enum: ["a", "b", "c"] } }, { propertyNames: { enum: ["b", "c", "d"] } }] } as JsonSchema, ['{"b": 1}', '{"a": 1}', '{"d": 1}', '{"b": 1, "c": 2}']);
  });
});

describe("references and unsatisfiable members", () => {
  it("resolves a $ref to a plain-name fragment ($id, $anchor)", async () => {
    await agrees({ type: "object", properties: { n: { $ref: "#small" } }, definitions: { s: { $id: "#small", ...num } } } as JsonSchema, ['{"n": 3}', '{"n": 10}']);
    await agrees({ type: "object", properties: { n: { $ref: "#small" } }, $defs: { s: { $anchor: "small", ...num } } } as JsonSchema, ['{"n": 3}', '{"n": 10}']);
  });

  it("a required member no key may name makes that object impossible, not the schema invalid", async () => {
    const bad = { type: "object", properties: { a: num }, required: ["b"], additionalProperties: false };
    await agrees({ anyOf: [bad, num] } as JsonSchema, ["3", '{"a": 1}', '{"b": 1}']);
    const r = compileSchema(bad as JsonSchema, { maxTokens: 256 });
    expect(r.ok ? undefined : r.error.code).toBe("unsatisfiable_schema");
  });
});
