// The bench's canonical spelling of a MaskBench instance: object keys in the order qtc's grammar writes them, so a
// valid instance the grammar rejects is the grammar's fault, not a key order only the instance has.

import { describe, expect, it } from "vitest";
import { schemaOrdered } from "../../bench/lib/maskbench-order.js";

const from = { type: "object", properties: { alias: { type: "string" }, baseImage: { type: "string" } } };

describe("schemaOrdered", () => {
  it("puts listed members first, in the schema's order, and other keys after as given", () => {
    const schema = { type: "object", properties: { b: {}, a: {} } };
    expect(schemaOrdered({ z: 1, a: 2, b: 3 }, schema)).toBe('{"b": 3, "a": 2, "z": 1}');
  });

  it("orders an object whose propertyNames names its keys in the names' order (through a $ref too), as the compiler lists them", () => {
    const schema = { type: "object", definitions: { dir: { enum: ["N", "S", "E"] } }, propertyNames: { $ref: "#/definitions/dir" }, additionalProperties: { type: "string" } };
    expect(schemaOrdered({ E: "r3", N: "r1" }, schema)).toBe('{"N": "r1", "E": "r3"}');
  });

  it("puts required names no property lists after the listed ones, in `required`'s order (allOf parts too), as the compiler writes them", async () => {
    // MaskBench o12335 (pattern keys beside required `name:en`) and o29388 (a required name under a misspelled
    // `parameters`) were counted as refusing a valid instance only because of this order.
    const schema = { type: "object", properties: { a: {} }, patternProperties: { "^n:[a-z]{2}$": { type: "string" } }, required: ["n:en"], allOf: [{ required: ["t"] }] };
    const text = schemaOrdered({ "n:nl": "y", t: true, a: 1, "n:en": "x" }, schema);
    expect(text).toBe('{"a": 1, "n:en": "x", "t": true, "n:nl": "y"}');
    const { compileSchema } = await import("../../src/grammar/index.js");
    const { judgeTextWithGbnf } = await import("../../src/engine/text-judge.js");
    const compiled = compileSchema(schema, { maxTokens: 512, unsupported: "strict" });
    expect(compiled.ok && judgeTextWithGbnf(compiled.value.gbnf, text)).toBe("accepted");
  });

  it("puts the members of the if/then/else branch the value takes after the base's, as the compiler writes them", async () => {
    // MaskBench anywork-ac-1.1: `swagger-codegen`, required by a `then`, came after an extra `$schema` key, and both
    // valid instances counted as refused.
    const branch = (ctype: string, member: string) => ({ if: { properties: { ctype: { const: ctype } } }, then: { required: [member], properties: { [member]: { type: "integer" } } } });
    const schema = { type: "object", properties: { ctype: { type: "string" } }, required: ["ctype"], allOf: [branch("a", "alpha"), branch("b", "beta")] };
    const value = { $schema: "x", beta: 2, ctype: "b" };
    const text = schemaOrdered(value, schema);
    expect(text).toBe('{"ctype": "b", "beta": 2, "$schema": "x"}');
    const { compileSchema } = await import("../../src/grammar/index.js");
    const { judgeTextWithGbnf } = await import("../../src/engine/text-judge.js");
    const compiled = compileSchema(schema, { maxTokens: 512, unsupported: "strict" });
    expect(compiled.ok && judgeTextWithGbnf(compiled.value.gbnf, text)).toBe("accepted");
  });

  it("orders a member reached through $ref by its target", () => {
    const schema = { definitions: { from }, type: "object", properties: { from: { $ref: "#/definitions/from" } } };
    expect(schemaOrdered({ from: { baseImage: "u", alias: "x" } }, schema)).toBe('{"from": {"alias": "x", "baseImage": "u"}}');
  });

  it("orders a key's value by the patternProperties schema its name matches", () => {
    const schema = { definitions: { from }, type: "object", patternProperties: { "^from": { $ref: "#/definitions/from" } }, additionalProperties: { type: "object", properties: { y: {}, x: {} } } };
    expect(schemaOrdered({ from_a: { baseImage: "u", alias: "x" }, other: { x: 1, y: 2 } }, schema)).toBe('{"from_a": {"alias": "x", "baseImage": "u"}, "other": {"y": 2, "x": 1}}');
  });

  it("orders an array's items by the anyOf/oneOf option that describes arrays", () => {
    const ref = { type: "object", properties: { "@type": {}, "@id": {} } };
    const schema = { definitions: { ref }, type: "object", additionalProperties: { oneOf: [{ $ref: "#/definitions/ref" }, { type: "string" }, { type: "array", items: { $ref: "#/definitions/ref" } }] } };
    const value = { friend: { "@id": "2", "@type": "P" }, hobbies: [{ "@id": "3", "@type": "H" }] };
    expect(schemaOrdered(value, schema)).toBe('{"friend": {"@type": "P", "@id": "2"}, "hobbies": [{"@type": "H", "@id": "3"}]}');
  });

  it("orders an object by the oneOf option whose discriminator admits it, not the first with as many members", () => {
    const summary = (props: object) => ({ type: "object", properties: { status: {}, summary: props } });
    const failed = { ...summary({ type: "object" }), properties: { status: { enum: ["error"] }, summary: { type: "object" } } };
    const ok = { ...summary({}), properties: { status: { const: "success" }, summary: { type: "object", properties: { all: {}, sure: {} } } } };
    const value = { status: "success", summary: { sure: ["MIT"], all: 3 } };
    expect(schemaOrdered(value, { oneOf: [failed, ok] })).toBe('{"status": "success", "summary": {"all": 3, "sure": ["MIT"]}}');
  });

  it("orders an object by the oneOf option whose pattern admits its discriminator", () => {
    // MaskBench o71265 and o71266 (jsend): `status` is told apart by `^fail$` and `^success$`, and the first option
    // with as many members ordered the failures' items by the wrong one.
    const option = (status: string, item: object) => ({ properties: { status: { type: "string", pattern: `^${status}$` }, data: { type: "array", items: item } } });
    const schema = { type: "object", oneOf: [option("success", {}), option("fail", { type: "object", properties: { message: {}, code: {}, field: {} } })] };
    const value = { status: "fail", data: [{ message: "m", field: "f", code: 1 }] };
    expect(schemaOrdered(value, schema)).toBe('{"status": "fail", "data": [{"message": "m", "code": 1, "field": "f"}]}');
  });
});
