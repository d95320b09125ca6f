// propertyNames held by rewriting the object (src/grammar/property-names.ts): names listed outright, a key pattern
// (extra members become the pattern's members), the schemas that say nothing about a key, and `false`.
import { describe, expect, it } from "vitest";
import { foldPropertyNames } from "../../src/grammar/property-names.js";
import { admitsExactlyValid } from "./helpers.js";

describe("foldPropertyNames", () => {
  it("drops a propertyNames that every key satisfies", () => {
    for (const p of [true, {}, { type: "string" }, { type: "string", description: "d" }]) {
      expect(foldPropertyNames({ type: "object", propertyNames: p, additionalProperties: {} })).toEqual({ type: "object", additionalProperties: {} });
    }
  });

  it("a key pattern makes the extra members that pattern's members; a listed name it refuses is never written", () => {
    const folded = foldPropertyNames({ type: "object", properties: { Ab: { type: "string" } }, propertyNames: { pattern: "^[a-z]+$" }, additionalProperties: { type: "integer" } });
    expect(folded).toEqual({ type: "object", properties: { Ab: false }, patternProperties: { "^[a-z]+$": { type: "integer" } }, additionalProperties: false });
  });

  it("leaves to the policy a pattern a listed name matches (it would take the extra schema too), and other keywords", () => {
    expect(foldPropertyNames({ type: "object", properties: { ab: {} }, propertyNames: { pattern: "^[a-z]+$" }, additionalProperties: { type: "integer" } })).toBeUndefined();
    expect(foldPropertyNames({ type: "object", propertyNames: { maxLength: 3 } })).toBeUndefined();
    expect(foldPropertyNames({ type: "object", propertyNames: { pattern: "(" } })).toBeUndefined();
  });

  it("a pattern every key matches, with no additionalProperties, is the extra members' schema (listed members satisfy it too)", () => {
    const folded = foldPropertyNames({ type: "object", properties: { "1": { type: "integer" } }, propertyNames: { pattern: "^[a-z]$" }, patternProperties: { ".*": { minimum: 3 } } });
    expect(folded).toEqual({ type: "object", properties: { "1": false }, patternProperties: { "^[a-z]$": { minimum: 3 } }, additionalProperties: false });
    // `^.*$` is not universal (`.` does not match a line break): left to the policy.
    expect(foldPropertyNames({ type: "object", propertyNames: { pattern: "^[a-z]$" }, patternProperties: { "^.*$": { minimum: 3 } } })).toBeUndefined();
  });

  it("false leaves only the empty object", () => {
    expect(foldPropertyNames({ type: "object", properties: { a: {} }, propertyNames: false })).toEqual({ type: "object", properties: { a: false }, additionalProperties: false });
  });

  it("names beside patternProperties: each gets its own, its patterns' or additionalProperties' schema, and no other key", () => {
    const s = { type: "object", properties: { a: { type: "string" } }, propertyNames: { enum: ["a", "x1", "y"] }, patternProperties: { "^x": { type: "integer" }, "1$": { minimum: 0 } }, additionalProperties: { type: "boolean" } };
    expect(foldPropertyNames(s)).toEqual({ type: "object", properties: { a: { type: "string" }, x1: { allOf: [{ type: "integer" }, { minimum: 0 }] }, y: { type: "boolean" } }, additionalProperties: false });
  });

  it("reads names through a $ref with the resolver it is given", () => {
    const names = { enum: ["n", "s"] };
    const s = { type: "object", propertyNames: { $ref: "#/definitions/direction" }, additionalProperties: { type: "string" } };
    expect(foldPropertyNames(s)).toBeUndefined();
    expect(foldPropertyNames(s, (v) => (v === s.propertyNames ? names : v))).toEqual({ type: "object", properties: { n: { type: "string" }, s: { type: "string" } }, additionalProperties: false });
  });

  it("a names-through-$ref object beside patternProperties: the grammar admits exactly what the validator accepts", async () => {
    const schema = { type: "object", definitions: { pipette: { type: "string", enum: ["p10", "p50"] } }, propertyNames: { $ref: "#/definitions/pipette" }, patternProperties: { ".*": { type: "number" } }, additionalProperties: false };
    await admitsExactlyValid(schema, [{}, { p10: 1 }, { p10: 1, p50: 2.5 }, { p20: 1 }, { p10: "x" }]);
  });
});
