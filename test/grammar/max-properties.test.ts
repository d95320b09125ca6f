// maxProperties below the number of listed members (src/grammar/lower-object.ts fewerMembers; issue 49's MaskBench
// coverage: "one of these keys" objects, `maxProperties: 1` over listed members, closed or open): one object per
// set of optional members that fits the bound, and the grammar admits exactly the objects qtc's validator accepts.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { admitsExactlyValid } from "./helpers.js";

const objects = [{}, { a: 1 }, { b: "x" }, { c: true }, { a: 1, b: "x" }, { a: 1, c: false }, { a: "no" }, { d: 1 }, { a: 1, d: 2 }, { b: "x", c: null }, { a: 1, b: "y", c: true }];

describe("maxProperties below the number of listed properties (issue 49)", () => {
  it("closed, at most one member: exactly the objects the validator accepts", async () => {
    await admitsExactlyValid({ type: "object", properties: { a: { type: "integer" }, b: { type: "string" }, c: {} }, additionalProperties: false, maxProperties: 1 }, objects);
  });

  it("closed, exactly one member (minProperties 1): exactly the objects the validator accepts", async () => {
    await admitsExactlyValid({ type: "object", properties: { a: { type: "integer" }, b: { type: "string" }, c: {} }, additionalProperties: false, minProperties: 1, maxProperties: 1 }, objects);
  });

  it("open (extra members follow the schema), at most one member: an extra key never spells a listed name", async () => {
    await admitsExactlyValid({ type: "object", properties: { a: { type: "integer" }, b: { type: "string" } }, maxProperties: 1 }, objects);
  });

  it("a required member beside optional ones, at most two: exactly the objects the validator accepts", async () => {
    await admitsExactlyValid({ type: "object", properties: { a: { type: "integer" }, b: { type: "string" }, c: {} }, required: ["a"], additionalProperties: false, maxProperties: 2 }, objects);
  });

  it("more required members than the bound: no object (refused as unsatisfiable)", () => {
    const r = compileSchema({ type: "object", properties: { a: {}, b: {}, c: {} }, required: ["a", "b"], maxProperties: 1 }, { unsupported: "strict" });
    expect(r).toMatchObject({ ok: false, error: { code: "unsatisfiable_schema" } });
  });

  it("more sets of optional members than it spells: refused at maxProperties", () => {
    const properties = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, { type: "integer" }]));
    const r = compileSchema({ type: "object", properties, additionalProperties: false, maxProperties: 3 }, { unsupported: "strict" });
    expect(r).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/maxProperties" } });
  });
});
