// The keywords issue 38 made the grammar hold, judged instance by instance by qtc's constraint engine against
// ajv (qtc's validator options): `not` beside an enum and `not` of not/allOf/counts/bounds, fractional number
// bounds, multipleOf 1 and 10^-k on numbers, and the formats url, uri-reference, ipv6 and byte.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { compileValueValidator } from "../../src/tools/validators.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { agreesWithValidator as agrees, schemaChecker as checker } from "./helpers.js";

describe("not", () => {
  it("beside an enum keeps the values the negated schema refuses, whatever it says", async () => {
    await agrees({ enum: ["a", "bb", 3, [1], { x: 1 }], not: { anyOf: [{ type: "string", pattern: "^b" }, { type: "array", minItems: 1 }] } }, ['"a"', '"bb"', "3", "[1]", '{"x": 1}', '"c"']);
    await agrees({ allOf: [{ enum: ["foo"] }, { not: { not: { multipleOf: 2 } } }] }, ['"foo"', '"bar"']);
    await agrees({ allOf: [{ enum: ["1", 1] }, { not: { type: "integer" } }] }, ['"1"', "1"]);
  });

  it("of not is the schema itself; of allOf, any part broken", async () => {
    await agrees({ type: "integer", minimum: 0, maximum: 9, not: { not: { minimum: 5 } } }, ["3", "4", "5", "9", "10"]);
    await agrees({ type: "integer", minimum: 0, maximum: 9, not: { allOf: [{ minimum: 3 }, { maximum: 6 }] } }, ["0", "2", "3", "6", "7", "9"]);
  });

  it("of a count or a bound is the other side of it", async () => {
    await agrees({ type: "array", items: { type: "integer", minimum: 0, maximum: 9 }, not: { minItems: 2 } }, ["[]", "[1]", "[1, 2]", "[1, 2, 3]"]);
    await agrees({ type: "array", items: { type: "integer", minimum: 0, maximum: 9 }, maxItems: 4, not: { maxItems: 2 } }, ["[1]", "[1, 2]", "[1, 2, 3]"]);
    await agrees({ type: "string", maxLength: 6, not: { maxLength: 2 } }, ['"ab"', '"abc"', '""']);
    await agrees({ type: "string", not: { minLength: 3 } }, ['"ab"', '"abc"', '""']);
    await agrees({ type: "integer", minimum: -5, maximum: 5, not: { minimum: 2 } }, ["-5", "1", "2", "5"]);
    await agrees({ type: "integer", minimum: -5, maximum: 5, not: { exclusiveMaximum: 2 } }, ["-5", "1", "2", "5"]);
    // minItems holds for every non-array: its negation leaves arrays only.
    await agrees({ type: ["array", "string"], items: { type: "integer", minimum: 0, maximum: 9 }, not: { minItems: 2 } }, ["[1]", '"x"', "[1, 2]"]);
  });

  it("is still refused where it cannot be held", () => {
    // A pattern whose DFA (2^12 states) is past what regex-dfa.ts builds.
    const r = compileSchema({ type: "string", not: { pattern: "^[ab]*a[ab]{11}$" } }, { maxTokens: 256 });
    expect(r.ok ? undefined : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/not"]);
  });
});

describe("numbers", () => {
  const samples = ["0", "0.2", "0.25", "0.250", "0.3", "0.26", "0.249", "1", "1.0", "1.01", "-0.5", "-0.25", "-0.51", "-0.05", "0.5", "0.51", "0.49", "500.25", "0.07", "0.075", "99999999999.99", "99999999999.999", "100000000000", "128", "2.5"];
  for (const schema of [
    { type: "number", minimum: 0.25, maximum: 1 },
    { type: "number", exclusiveMinimum: 0.25, exclusiveMaximum: 1 },
    { type: "number", minimum: 0.3 },
    { type: "number", minimum: -0.5, maximum: 0.5 },
    { type: "number", exclusiveMinimum: -0.5, exclusiveMaximum: 0.5 },
    { type: "number", minimum: 0, maximum: 0.5 },
    { type: "number", exclusiveMinimum: 0, maximum: 0.5 },
    { type: "number", multipleOf: 0.01 },
    { type: "number", multipleOf: 0.1, minimum: 0.25 },
    { type: "number", multipleOf: 0.01, minimum: 0, maximum: 99999999999.99 },
    { type: "number", multipleOf: 1, minimum: 2 },
  ] as JsonSchema[]) {
    it(`${JSON.stringify(schema)} accepts what the validator accepts`, async () => {
      // multipleOf 10^-k spells at most k fraction digits: "0.250" is 0.25's spelling with a zero too many.
      await agrees(schema, schema.multipleOf === undefined ? samples : samples.filter((t) => t !== "0.250"));
    });
  }

  it("refuses multipleOf that is neither 1 nor a power of ten below it, and fractions on both sides of one whole", () => {
    for (const [schema, path] of [
      [{ type: "number", multipleOf: 0.25 }, "/multipleOf"],
      [{ type: "number", multipleOf: 256 }, "/multipleOf"],
      [{ type: "number", minimum: 0.2, maximum: 0.8 }, "/minimum"],
    ] as const) {
      const r = compileSchema(schema as JsonSchema, { maxTokens: 256 });
      expect(r.ok ? undefined : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", path]);
    }
  });
});

describe("formats", () => {
  const cases: Record<string, { valid: string[]; invalid: string[] }> = {
    url: {
      valid: ["https://example.com", "http://a-b.example.org:8080/x/y?q=1#f", "ftp://files.example.net/pub", "HTTPS://Example.COM/"],
      invalid: ["example.com", "https://localhost", "https://exa mple.com", "mailto:a@b.co", "https://-a.com", "https://a.com:1"],
    },
    "uri-reference": {
      valid: ["https://example.com/a?b#c", "/a/b", "a/b", "../x", "#frag", "?q=1", "//host/p", "", "urn:isbn:123"],
      invalid: ["a b", "\\\\x", "%zz", "a^b"],
    },
    ipv6: {
      valid: ["::", "::1", "fe80::1", "2001:db8::8a2e:370:7334", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "1::", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "ABCD::ef"],
      invalid: ["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "g::", ":", "1:2"],
    },
    byte: {
      valid: ["", "QUJD", "QUI=", "QQ==", "aGVsbG8gd29ybGQ="],
      invalid: ["Q", "QUJ", "QQ=", "QUJD=", "Q===", "QU I="],
    },
  };
  for (const [format, { valid, invalid }] of Object.entries(cases)) {
    it(`${format}: the valid samples pass and the invalid ones are refused, as ajv-formats says`, async () => {
      const accepts = await checker({ type: "string", format }, 512);
      const validate = compileValueValidator({ type: "string", format });
      for (const s of valid) {
        expect(validate(s), `ajv ${s}`).toBeNull();
        expect(accepts(JSON.stringify(s)), s).toBe(true);
      }
      for (const s of invalid) {
        expect(validate(s), `ajv ${s}`).not.toBeNull();
        expect(accepts(JSON.stringify(s)), s).toBe(false);
      }
    });
  }
});
