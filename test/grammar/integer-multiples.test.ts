// multipleOf as a whole number (src/grammar/integer-multiples.ts; issue 49's MaskBench coverage: multipleOf 4
// between 16 and 100, multipleOf 3 unbounded, multipleOf 10 on numbers below 100, two steps in one allOf):
// the grammar spells the multiples digit by digit with their remainder, and admits exactly the values qtc's
// validator accepts. A step past MAX_MULTIPLE stays refused.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { MAX_MULTIPLE } from "../../src/grammar/integer-multiples.js";
import { admitsExactlyValid } from "./helpers.js";

const near = (values: number[]) => [...new Set(values.flatMap((v) => [v - 1, v, v + 1]))];

describe("multipleOf as a whole number (issue 49)", () => {
  it("multipleOf 4 between 16 and 100", async () => {
    await admitsExactlyValid({ type: "integer", multipleOf: 4, minimum: 16, maximum: 100 }, [...near([0, 12, 16, 20, 52, 96, 100, 104]), 1.5, "16"]);
  });

  it("multipleOf 3, unbounded, negatives included", async () => {
    await admitsExactlyValid({ type: "integer", multipleOf: 3 }, [...near([0, 3, 9, 27, 99, 300, 1002, -3, -12, -999]), 123456789, 123456788, 999999999999999, 999999999999998]);
  });

  it("multipleOf 7 with exclusive bounds", async () => {
    await admitsExactlyValid({ type: "integer", multipleOf: 7, exclusiveMinimum: 9999, exclusiveMaximum: 10011 }, near([9996, 10003, 10010, 10017]));
  });

  it("multipleOf 10 on numbers below 100: integers only (a whole step admits no fraction)", async () => {
    await admitsExactlyValid({ type: "number", multipleOf: 10, exclusiveMaximum: 100 }, [...near([-100, -10, 0, 10, 90, 100]), 10.5, 0.5]);
  });

  it("two whole steps in one allOf: their least common multiple", async () => {
    await admitsExactlyValid({ allOf: [{ type: "integer", multipleOf: 4 }, { multipleOf: 6 }], minimum: -40, maximum: 40 }, near([-36, -24, -12, 0, 8, 12, 18, 24, 36, 48]));
  });

  it("a step past MAX_MULTIPLE stays refused", () => {
    expect(compileSchema({ type: "integer", multipleOf: MAX_MULTIPLE + 1 }, { unsupported: "strict" })).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/multipleOf" } });
  });
});
