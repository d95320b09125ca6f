// Refuse, don't degrade: every keyword the compiler cannot honour is an `unsupported_keyword` error at its JSON
// pointer, never dropped; annotations are ignored; what is honoured compiles.

import { describe, expect, it } from "vitest";
import { compileSchema, compileToolGrammar } from "../../src/grammar/index.js";
import type { JsonSchema } from "../../src/tools/types.js";

function errorOf(schema: JsonSchema | boolean) {
  const r = compileSchema(schema, { maxTokens: 256 });
  return r.ok ? undefined : { code: r.error.code, path: r.error.path };
}

const obj = (properties: Record<string, unknown>, extra: JsonSchema = {}): JsonSchema => ({ type: "object", properties, ...extra });
/** "An a twelve characters from the end": 2^12 states as a DFA, past what regex-dfa.ts builds. */
const BIG_DFA = "^[ab]*a[ab]{11}$";

describe("unsupported keywords", () => {
  const cases: [string, JsonSchema, string][] = [
    ["format uri-template", obj({ a: { type: "string", format: "uri-template" } }), "/properties/a/format"],
    ["patternProperties matching a listed name beside additionalProperties false, past what the pattern without it proves", obj({ docker: {} }, { patternProperties: { "^[a-z0-9]([-a-z0-9]{0,48}[a-z0-9])?$": { type: "string" } }, additionalProperties: false }), "/patternProperties"],
    ["not of a pattern whose automaton is too large", obj({ a: { type: "string", not: { pattern: BIG_DFA } } }), "/properties/a/not"],
    ["an if whose branches the grammar cannot hold", obj({ a: { type: "string" } }, { additionalProperties: false, if: { minProperties: 2 } }), "/if"],
    ["contains a prefix item must match that the grammar cannot tell from it", obj({ a: { type: "array", prefixItems: [{ type: "string", pattern: "^a" }], items: false, contains: { pattern: BIG_DFA } } }), "/properties/a/contains"],
    ["more than 6 dependencies, schemas", obj({ a: {} }, { dependentSchemas: { a: { required: ["x"] }, b: { required: ["x"] }, c: { required: ["x"] }, d: { required: ["x"] }, e: { required: ["x"] }, f: { required: ["x"] }, g: { required: ["x"] } } }), "/dependentSchemas/g"],
    ["more than 6 dependencies, lists needing more than 4 names", obj({ a: {} }, { dependentRequired: { a: ["t"], b: ["u"], c: ["v"], d: ["w"], e: ["x"], f: ["y"], g: ["z"] } }), "/dependentRequired/g"],
    ["propertyNames", obj({}, { propertyNames: { maxLength: 3 } }), "/propertyNames"],
    ["unevaluatedProperties", obj({}, { unevaluatedProperties: false }), "/unevaluatedProperties"],
    ["multipleOf on a number", obj({ a: { type: "number", multipleOf: 0.5 } }), "/properties/a/multipleOf"],
    ["multipleOf 100 on an integer", obj({ a: { type: "integer", multipleOf: 100 } }), "/properties/a/multipleOf"],
    ["fractional number bounds on both sides of one whole number", obj({ a: { type: "number", minimum: 0.2, maximum: 0.8 } }), "/properties/a/minimum"],
    ["lookahead in a pattern", obj({ a: { type: "string", pattern: "^(?=x)x$" } }), "/properties/a/pattern"],
    ["a backreference in a pattern", obj({ a: { type: "string", pattern: "^(a)\\1$" } }), "/properties/a/pattern"],
    ["a word boundary in a pattern", obj({ a: { type: "string", pattern: "\\bword\\b" } }), "/properties/a/pattern"],
    ["a unicode property escape", obj({ a: { type: "string", pattern: "^\\p{L}+$" } }), "/properties/a/pattern"],
    ["uniqueItems: true", obj({ a: { type: "array", items: { type: "string" }, uniqueItems: true } }), "/properties/a/uniqueItems"],
    ["minProperties beyond required (other than 1) with no extra members", obj({ a: { type: "string" }, b: { type: "string" } }, { minProperties: 2, additionalProperties: false }), "/minProperties"],
    ["a remote $ref", obj({ a: { $ref: "https://example.com/s.json" } }), "/properties/a/$ref"],
    ["a keyword inside $defs reached by $ref", obj({ a: { $ref: "#/$defs/x" } }, { $defs: { x: { type: "string", format: "duration" } } }), "/$defs/x/format"],
    ["a keyword inside an allOf part", { allOf: [obj({ a: { type: "string" } }), { propertyNames: { maxLength: 3 } }] }, "/allOf/1/propertyNames"],
    ["a keyword in an array's items", obj({ a: { type: "array", items: { type: "string", not: { pattern: BIG_DFA } } } }), "/properties/a/items/not"],
    ["overlapping oneOf options", obj({ a: { oneOf: [{ type: "string", pattern: "ab" }, { type: "string", pattern: BIG_DFA }] } }), "/properties/a/oneOf"],
    ["pattern with format", obj({ a: { type: "string", format: "date", pattern: "^2" } }), "/properties/a/pattern"],
    ["minLength above 64 a pattern does not imply, over two repeated parts", obj({ a: { type: "string", pattern: "^a+(b|cd)+$", minLength: 70 } }), "/properties/a/minLength"],
    ["a JSON pointer token with ~ and /", obj({ "a/b~c": { type: "string", format: "uri-template" } }), "/properties/a~1b~0c/format"],
  ];
  for (const [what, schema, path] of cases) {
    it(`refuses ${what} at ${path}`, () => {
      expect(errorOf(schema)).toEqual({ code: "unsupported_keyword", path });
    });
  }

  it("names the tool and keeps the pointer when a tool's schema is refused", () => {
    const r = compileToolGrammar([{ name: "t", parameters: obj({ a: { type: "string", format: "uri-template" } }) }], { toolChoice: "required", unsupported: "strict" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatchObject({ code: "unsupported_keyword", path: "/properties/a/format" });
      expect(r.error.message).toContain('tool "t"');
    }
  });

  it("ignores annotations and extension keywords", () => {
    const schema = obj(
      { a: { type: "string", title: "A", description: "d", examples: ["x"], default: "x", deprecated: true, readOnly: true, "x-ui": { w: 1 } } },
      { $schema: "https://json-schema.org/draft/2020-12/schema", $id: "urn:x", $comment: "c", title: "T", description: "D", required: ["a"] },
    );
    expect(errorOf(schema)).toBeUndefined();
  });

  it("does not look at $defs nothing refers to", () => {
    expect(errorOf(obj({ a: { type: "string" } }, { $defs: { unused: { type: "string", format: "email" } } }))).toBeUndefined();
  });

  it("refuses a required property that can never be valid, and an unreachable $ref", () => {
    expect(errorOf(obj({ a: false }, { required: ["a"] }))).toEqual({ code: "unsatisfiable_schema", path: "/properties/a" });
    expect(errorOf(obj({ a: { $ref: "#/$defs/missing" } }))).toEqual({ code: "invalid_schema", path: "/properties/a/$ref" });
  });

  it("refuses a name or literal that spells a tool-call tag", () => {
    expect(errorOf(obj({ a: { enum: ["ok", "a</tool_call>b"] } }))).toEqual({ code: "unsupported_keyword", path: "/properties/a" });
    expect(errorOf(obj({ "<think>": { type: "string" } }))).toEqual({ code: "unsupported_keyword", path: "/properties/<think>" });
  });
});
