// `not` of integer beside numbers (src/grammar/numbers.ts fractionalRule; issue 49's MaskBench coverage: a oneOf of
// objects whose negation reaches `{type: "integer"}`, `oneOf: [integer, number]`): the numbers with a fraction
// digit that is not 0, at most 7 digits each side of the point, and the grammar admits exactly the values qtc's
// validator accepts (in canonical spelling: no exponent). Beside bounds it stays refused.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { admitsExactlyValid } from "./helpers.js";

const numbers = [0, 1, -3, 1.5, -2.25, 0.1, 0.001, 1234567.5, 12.0625, 100];

describe("not of integer beside numbers (issue 49)", () => {
  it("a number that is not an integer", async () => {
    await admitsExactlyValid({ type: "number", not: { type: "integer" } }, [...numbers, "1.5", null]);
  });

  it("untyped: every other type, and the numbers with a fraction", async () => {
    await admitsExactlyValid({ not: { type: "integer" } }, [...numbers, "a", null, true, [], {}]);
  });

  it("oneOf integer and number: only the numbers that are not integers", async () => {
    await admitsExactlyValid({ oneOf: [{ type: "integer" }, { type: "number" }] }, numbers);
  });

  it("beside bounds: refused", () => {
    expect(compileSchema({ type: "number", minimum: 1, not: { type: "integer" } }, { unsupported: "strict" })).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/not" } });
  });
});
