// Value grammars against their JSON Schema meaning, judged by qtc's constraint engine and ajv: integer and
// number bounds (exhaustively over small ranges), string formats, and the pattern subset (differentially against
// JavaScript's RegExp on generated strings).

import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { LlamaModel } from "node-llama-cpp";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { tinyModel } from "./helpers.js";

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const ajv = new Ajv2020({ strict: false, unicode: true } as never);
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

async function checker(schema: JsonSchema, maxTokens = 256): Promise<(text: string) => boolean> {
  const r = compileSchema(schema, { maxTokens });
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
  const c = await GrammarChecker.create(model, r.value);
  return (text) => c.checkText(text).accepted;
}

describe("integers", () => {
  for (const [lo, hi] of [
    [-15, 123],
    [0, 9],
    [7, 7],
    [-100, -3],
    [95, 1005],
  ] as const) {
    it(`accepts exactly the integers in [${lo}, ${hi}] (checked from ${lo - 20} to ${hi + 20})`, async () => {
      const accepts = await checker({ type: "integer", minimum: lo, maximum: hi });
      for (let v = lo - 20; v <= hi + 20; v++) expect(accepts(String(v)), String(v)).toBe(v >= lo && v <= hi);
      expect(accepts(`${lo}.5`)).toBe(false);
      expect(accepts("-0")).toBe(false);
      expect(accepts("007")).toBe(false);
    });
  }

  it("honours exclusive bounds, one-sided bounds and the digit cap", async () => {
    const above = await checker({ type: "integer", exclusiveMinimum: 10 });
    expect([10, 11, 999999].map((v) => above(String(v)))).toEqual([false, true, true]);
    const below = await checker({ type: "integer", maximum: -5 });
    expect([-4, -5, -123456].map((v) => below(String(v)))).toEqual([false, true, true]);
    const any = await checker({ type: "integer" });
    expect(any("999999999999999")).toBe(true);
    expect(any("1000000000000000")).toBe(false);
  });
});

describe("numbers", () => {
  it("accepts what ajv accepts between integer bounds, open and closed", async () => {
    const schemas: JsonSchema[] = [
      { type: "number", minimum: -20, maximum: 40 },
      { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      { type: "number", minimum: 0 },
      { type: "number", exclusiveMaximum: -2 },
    ];
    const samples = ["0", "-0.5", "0.5", "1", "1.0", "0.999", "-2", "-2.0", "-2.01", "-20", "-20.0", "-20.5", "40", "40.0", "40.01", "39.99", "17", "123.25", "-3", "0.0", "1e5"];
    for (const schema of schemas) {
      const accepts = await checker(schema);
      const validate = ajv.compile(schema);
      for (const s of samples) {
        if (s === "1e5") {
          expect(accepts(s), `${JSON.stringify(schema)} ${s}`).toBe(false); // bounded numbers are plain decimals
          continue;
        }
        expect(accepts(s), `${JSON.stringify(schema)} ${s}`).toBe(validate(JSON.parse(s)));
      }
    }
  });

  it("spells unbounded numbers like json.dumps, exponent included", async () => {
    const accepts = await checker({ type: "number" });
    for (const s of ["0", "-1", "3.25", "1e-05", "1.5e+16", "-0.0001"]) expect(accepts(s), s).toBe(true);
    for (const s of ["01", "1.", ".5", "+1", "1E5", "NaN", "Infinity"]) expect(accepts(s), s).toBe(false);
  });
});

describe("string formats", () => {
  for (const format of ["date", "time", "date-time", "uuid"] as const) {
    it(`${format}: accepts what ajv-formats (full) accepts`, async () => {
      const accepts = await checker({ type: "string", format });
      const validate = ajv.compile({ type: "string", format });
      const samples = [
        "2024-02-29", "2023-02-29", "2000-02-29", "1900-02-29", "2024-04-31", "2024-12-31", "2024-13-01", "2024-00-10",
        "23:59:59Z", "24:00:00Z", "12:30:00.123+02:00", "12:30:00", "09:05:07-11:30",
        "2024-05-01T12:00:00Z", "2024-05-01T12:00:00.5+02:00", "2024-05-01 12:00:00Z",
        "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000",
      ];
      // The grammar spells the canonical part of what ajv accepts: lowercase uuids, "T" and "Z" in upper case.
      const canonical = (s: string) => (format === "uuid" ? !/[A-F]/.test(s) : !/[a-z ]/.test(s));
      for (const s of samples) expect(accepts(JSON.stringify(s)), s).toBe(validate(s) && canonical(s));
    });
  }
});

describe("patterns", () => {
  const patterns = ["^[a-c]{2,4}$", "^(ab|c)+d?$", "b", "^a.c$", "^\\d{3}-\\d{2}$", "^(x|y)*z", "[^ab]{2}$", "^$", "^a|b$"];
  for (const pattern of patterns) {
    it(`/${pattern}/ accepts what RegExp accepts (generated strings)`, async () => {
      const accepts = await checker({ type: "string", pattern }, 64);
      const re = new RegExp(pattern, "u");
      fc.assert(
        fc.property(fc.stringMatching(/^[abcdxyz0-9\- é"]{0,6}$/), (s) => {
          expect(accepts(JSON.stringify(s)), JSON.stringify(s)).toBe(re.test(s));
        }),
        { numRuns: 150, seed: 42 },
      );
    });
  }
});
