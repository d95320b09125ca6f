import { describe, expect, it } from "vitest";
import { countSemantic, semanticKeywords, semanticLine } from "../../bench/lib/maskbench-semantic.js";

describe("MaskBench's semantic keyword counts", () => {
  it("finds the keywords anywhere in a schema, but not inside enum values, and uniqueItems only when true", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "array", uniqueItems: true, contains: { const: 1 } }, b: { uniqueItems: false } },
      $defs: { d: { propertyNames: { enum: ["x"] }, oneOf: [{}, {}] } },
      enum: [{ minProperties: 1 }],
    };
    expect(semanticKeywords(schema)).toEqual(["propertyNames", "uniqueItems", "contains", "oneOf"]);
    expect(semanticKeywords(true)).toEqual([]);
  });

  it("counts schemas per keyword and how many compiled", () => {
    const counts = countSemantic([
      { status: "passing", semantic: ["uniqueItems"] },
      { status: "compile-error", semantic: ["uniqueItems", "contains"] },
      { status: "validation-error" },
    ]);
    expect(counts).toEqual({ uniqueItems: { schemas: 2, compiled: 1 }, contains: { schemas: 1, compiled: 0 } });
    expect(semanticLine(counts)).toContain("uniqueItems 2 (1 compiled), contains 1 (0 compiled)");
  });
});
