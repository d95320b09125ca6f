import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { BoundedCache, compileValidators, compileValueValidator, ValidatorCache } from "../../src/tools/index.js";

describe("compileValidators", () => {
  const tools = [
    { name: "read_file", parameters: { type: "object", properties: { path: { type: "string", maxLength: 3 }, at: { type: "string", format: "date" } }, required: ["path"] } },
    { name: "any", parameters: { type: "object", properties: { n: { type: ["integer", "null"] }, e: { enum: ["a", 1] } }, additionalProperties: { type: "number" } } },
  ];

  it("compiles once: the same array, or a list with the same JSON, gives the same frozen object", () => {
    const cache = new ValidatorCache();
    const a = compileValidators(tools, cache);
    expect(compileValidators(tools, cache)).toBe(a);
    expect(compileValidators(JSON.parse(JSON.stringify(tools)), cache)).toBe(a);
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

describe("ValidatorCache", () => {
  const list = (k: number) => [{ name: `t${k}`, parameters: { type: "object", properties: { [`p${k}`]: { type: "string" } } } }];

  it("is owned by its creator: without one every compile is fresh; two caches share nothing", () => {
    expect(compileValidators(list(1))).not.toBe(compileValidators(list(1)));
    const one = new ValidatorCache();
    const two = new ValidatorCache();
    expect(compileValidators(list(1), one)).not.toBe(compileValidators(list(1), two));
    const schema = { type: "object", properties: { ok: { type: "boolean" } } };
    expect(compileValueValidator(schema, one)).toBe(compileValueValidator(JSON.parse(JSON.stringify(schema)), one));
    expect(compileValueValidator(schema, one)).not.toBe(compileValueValidator(schema, two));
  });

  it("keeps at most its capacity of tool lists, dropping the least recently used", () => {
    const cache = new ValidatorCache({ toolLists: 2 });
    const first = compileValidators(list(1), cache);
    compileValidators(list(2), cache);
    expect(compileValidators(list(1), cache)).toBe(first); // now the most recent
    compileValidators(list(3), cache); // drops list 2
    expect(compileValidators(list(1), cache)).toBe(first);
    const second = compileValidators(list(2), cache);
    expect(compileValidators(list(2), cache)).toBe(second);
  });
});

describe("BoundedCache", () => {
  it("evicts the least recently used entry beyond its capacity", () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect([cache.get("a"), cache.get("c"), cache.size]).toEqual([1, 3, 2]);
  });
});
