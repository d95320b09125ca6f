import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { compileValidators } from "../../src/tools/index.js";

describe("compileValidators", () => {
  const tools = [
    { name: "read_file", parameters: { type: "object", properties: { path: { type: "string", maxLength: 3 }, at: { type: "string", format: "date" } }, required: ["path"] } },
    { name: "any", parameters: { type: "object", properties: { n: { type: ["integer", "null"] }, e: { enum: ["a", 1] } }, additionalProperties: { type: "number" } } },
  ];

  it("compiles once: the same array, or a list with the same JSON, gives the same frozen object", () => {
    const a = compileValidators(tools);
    expect(compileValidators(tools)).toBe(a);
    expect(compileValidators(JSON.parse(JSON.stringify(tools)))).toBe(a);
    expect(compileValidators(a)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.get("read_file"))).toBe(true);
    expect(a.names).toEqual(["read_file", "any"]);
  });

  it("validates with ajv, formats included, counting string length in code points", () => {
    const t = compileValidators(tools).get("read_file")!;
    expect(t.validate({ path: "abc" })).toBeNull();
    expect(t.validate({ path: "😀😀😀" })).toBeNull();
    expect(t.validate({ path: "abcd" })?.map((e) => e.keyword)).toEqual(["maxLength"]);
    expect(t.validate({ path: "a", at: "2024-02-30" })?.map((e) => e.keyword)).toEqual(["format"]);
    expect(t.validate({ path: "a", at: "2024-02-29" })).toBeNull();
  });

  it("reads listed properties, required arguments and the types each may take", () => {
    const t = compileValidators(tools);
    expect([...t.get("read_file")!.properties.keys()]).toEqual(["path", "at"]);
    expect(t.get("read_file")!.required).toEqual(["path"]);
    expect(t.get("read_file")!.allowsExtra).toBe(false);
    const any = t.get("any")!;
    expect(any.allowsExtra).toBe(true);
    expect(any.typesOf("n")).toEqual(new Set(["integer", "null", "number"]));
    expect(any.typesOf("e")).toEqual(new Set(["string", "integer", "number"]));
    expect(any.typesOf("other")).toEqual(new Set(["number"]));
  });

  it("refuses a schema ajv cannot compile with invalid_schema naming the tool", () => {
    for (const parameters of [
      { type: "object", properties: { a: { type: "strin" } } },
      { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      { type: "object", properties: { a: { type: "string", pattern: "(" } } },
    ]) {
      let error: unknown;
      try {
        compileValidators([{ name: "broken_tool", parameters }]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(QtcException);
      expect((error as QtcException).code).toBe("invalid_schema");
      expect((error as QtcException).message).toContain('"broken_tool"');
    }
  });

  it("accepts draft-07 tuple items and 2020-12 prefixItems", () => {
    const d7 = compileValidators([{ name: "t", parameters: { type: "object", properties: { p: { type: "array", items: [{ type: "string" }, { type: "integer" }] } } } }]);
    expect(d7.get("t")!.validate({ p: ["a", 1] })).toBeNull();
    expect(d7.get("t")!.validate({ p: [1, "a"] })).not.toBeNull();
    const d20 = compileValidators([{ name: "t", parameters: { type: "object", properties: { p: { type: "array", prefixItems: [{ type: "string" }] } } } }]);
    expect(d20.get("t")!.validate({ p: [1] })).not.toBeNull();
  });

  it("resolves $ref and allOf when reading properties", () => {
    const t = compileValidators([
      {
        name: "r",
        parameters: { type: "object", $defs: { base: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } }, allOf: [{ $ref: "#/$defs/base" }], properties: { x: { $ref: "#/$defs/base" } } },
      },
    ]).get("r")!;
    expect([...t.properties.keys()]).toEqual(["x", "id"]);
    expect(t.required).toEqual(["id"]);
    expect(t.typesOf("x")).toEqual(new Set(["object"]));
    expect(t.typesOf("id")).toEqual(new Set(["integer", "number"]));
  });
});
