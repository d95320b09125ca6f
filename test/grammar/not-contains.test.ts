// `not` of `contains` (src/grammar/not-values.ts exceptContains; issue 49): an array none of whose items matches,
// written as `items: {not: …}`, and the grammar admits exactly the values qtc's validator accepts.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { admitsExactlyValid } from "./helpers.js";

describe("not of contains (issue 49)", () => {
  it("no item equal to a constant", async () => {
    await admitsExactlyValid({ type: "array", items: { type: "integer" }, not: { contains: { const: 1 } } }, [[], [0], [2, 3], [1], [0, 1], [1, 1], ["a"]]);
  });

  it("no string item (untyped items)", async () => {
    await admitsExactlyValid({ type: "array", not: { contains: { type: "string" } } }, [[], [1], [null, true], ["a"], [1, "b"], "x"]);
  });

  it("contains {}: only the empty array", async () => {
    await admitsExactlyValid({ type: "array", not: { contains: {} } }, [[], [1], ["a"], [[]]]);
  });

  it("beside prefix items: refused (an items part would skip them)", () => {
    expect(compileSchema({ type: "array", prefixItems: [{ type: "integer" }], not: { contains: { const: 1 } } }, { unsupported: "strict" })).toMatchObject({ ok: false, error: { code: "unsupported_keyword" } });
  });
});
