// Issue 31, bugs 3, 5 and 6 and the new keywords, judged by qtc's constraint engine (GrammarChecker) and,
// for every instance, by ajv: a listed name of exactly 24 characters beside `additionalProperties` gave an empty
// extra-key rule llama.cpp refused; a pattern under maxLength capped every repetition equally (one 7-letter word
// refused); `^([a-z]*)*$` compiled to an ambiguous grammar; and formats, `additionalProperties`' default and int32
// are now held exactly (or as a documented subset that never admits an invalid value).

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { formatsAjv, tinyModel } from "../grammar/helpers.js";

const ajv = formatsAjv();

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

/** Accepted by the grammar and valid by ajv, for each value (both must agree). */
async function verdicts(schema: JsonSchema, values: unknown[], maxTokens = 512): Promise<{ grammar: boolean[]; ajv: boolean[] }> {
  const r = compileSchema(schema, { maxTokens });
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
  const c = await GrammarChecker.create(model, r.value);
  const validate = ajv.compile(schema as object);
  return { grammar: values.map((v) => c.checkText(canonicalJson(v)).accepted), ajv: values.map((v) => validate(v) as boolean) };
}

describe("bug 3: a listed name of exactly 24 characters with additionalProperties", () => {
  for (const length of [23, 24, 25]) {
    it(`length ${length}: the engine loads the grammar; the listed member and an extra one are accepted`, async () => {
      const name = "a".repeat(length);
      const schema = { type: "object", properties: { [name]: { type: "string" } }, additionalProperties: { type: "integer" } };
      const v = await verdicts(schema, [{ [name]: "x" }, { [name]: "x", other: 1 }, { [name]: 1 }]);
      expect(v.grammar).toEqual([true, true, false]);
      expect(v.ajv).toEqual([true, true, false]);
    });
  }
});

describe("bug 5: a pattern of words under maxLength", () => {
  it("admits one 7-letter word and a few short words, never more than maxLength", async () => {
    const schema = { type: "string", pattern: "^(?:\\S+\\s+){0,9}\\S+$", maxLength: 100 };
    const v = await verdicts(schema, ["Benefit", "a b c d", "Free shipping", "x".repeat(101), "two  "]);
    expect(v.grammar).toEqual([true, true, true, false, false]);
    expect(v.ajv).toEqual([true, true, true, false, false]);
  });
});

describe("bug 6: nested repetition", () => {
  it("^([a-z]*)*$ compiles to the same grammar as ^[a-z]*$ (no ambiguity) and accepts what it should", async () => {
    const nested = compileSchema({ type: "string", pattern: "^([a-z]*)*$" }, { maxTokens: 64 });
    const flat = compileSchema({ type: "string", pattern: "^[a-z]*$" }, { maxTokens: 64 });
    expect(nested.ok && flat.ok && nested.value.gbnf === flat.value.gbnf).toBe(true);
    const v = await verdicts({ type: "string", pattern: "^([a-z]*)*$" }, ["abcdefghi", "", "abC"], 64);
    expect(v.grammar).toEqual([true, true, false]);
  });

  it("an ambiguous repetition that cannot be flattened is refused under strict, with its pointer", () => {
    // The tail (an `a` twelve characters from the end: 2^12 DFA states) keeps it past what its automaton rewrites.
    const r = compileSchema({ type: "object", properties: { a: { type: "string", pattern: "^(\\S+\\s*)*[ab]*a[ab]{11}$" } } }, { maxTokens: 256 });
    expect(r.ok ? undefined : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/properties/a/pattern"]);
  });
});

describe("formats held as patterns agree with ajv-formats", () => {
  const cases: [string, unknown[]][] = [
    ["email", ["a@b.co", "first.last+tag@example.com", "a@b", "@b.co", "a..b@c.de", "a b@c.de"]],
    ["ipv4", ["192.168.0.1", "0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3", "01.2.3.4"]],
    ["hostname", ["example.com", "a-b.example.org", "localhost", "-a.com", "a_b.com", "a..b"]],
    ["uri", ["https://example.com/a/b?x=1#f", "urn:isbn:0451450523", "mailto:a@b.co", "no-scheme", "http://exa mple.com", "1http://x"]],
  ];
  for (const [format, values] of cases) {
    it(`${format}: the grammar accepts a value only when ajv does, and the common valid ones`, async () => {
      const v = await verdicts({ type: "string", format }, values);
      for (let i = 0; i < values.length; i++) if (v.grammar[i]) expect(v.ajv[i]).toBe(true);
      expect(v.grammar.slice(0, 3).every((x, i) => x === v.ajv[i])).toBe(true);
    });
  }

  it("an unknown format asserts nothing (ajv ignores it too)", async () => {
    const v = await verdicts({ type: "string", format: "java-class-name" }, ["anything at all"]);
    expect(v).toEqual({ grammar: [true], ajv: [true] });
  });

  it("int32 bounds an integer to ajv-formats' range", async () => {
    const v = await verdicts({ type: "integer", format: "int32" }, [2147483647, 2147483648, -2147483648, -2147483649]);
    expect(v.grammar).toEqual([true, false, true, false]);
  });
});

describe("additionalProperties absent: JSON Schema's default (any extra member)", () => {
  it("compileSchema admits an unlisted member", async () => {
    const v = await verdicts({ type: "object", properties: { a: { type: "integer" } } }, [{ a: 1 }, { a: 1, b: "x" }, { b: [1] }, { a: "x" }, { a: 1, "pending jobs ": 5, "x-y.z": null }]);
    expect(v.grammar).toEqual([true, true, true, false, true]);
    expect(v.ajv).toEqual([true, true, true, false, true]);
  });
});

describe("minProperties 1 and maxProperties with extra members", () => {
  it("minProperties 1 refuses only the empty object", async () => {
    const v = await verdicts({ type: "object", properties: { a: { type: "integer" }, b: { type: "string" } }, additionalProperties: false, minProperties: 1 }, [{}, { a: 1 }, { b: "x" }, { a: 1, b: "x" }]);
    expect(v.grammar).toEqual([false, true, true, true]);
    expect(v.ajv).toEqual([false, true, true, true]);
  });

  it("maxProperties bounds listed and extra members together", async () => {
    const v = await verdicts({ type: "object", properties: { a: { type: "integer" } }, maxProperties: 2 }, [{ a: 1, b: 2 }, { a: 1, b: 2, c: 3 }, { b: 2 }]);
    expect(v.grammar).toEqual([true, false, true]);
    expect(v.ajv).toEqual([true, false, true]);
  });
});
