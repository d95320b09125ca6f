// `not` of a pattern that searches for one character of a class (src/grammar/not-values.ts exceptPattern; issue
// 49's MaskBench coverage: `not: {pattern: "(\\$)"}`, `not: {pattern: "[^a-zA-Z0-9.,()@&' -]"}`): the strings with
// no such character, and the grammar admits exactly the values qtc's validator accepts.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { admitsExactlyValid } from "./helpers.js";

describe("not of a pattern searching for one character of a class (issue 49)", () => {
  it("not (\\$): the strings without a dollar sign", async () => {
    await admitsExactlyValid({ type: "string", not: { pattern: "(\\$)" } }, ["", "abc", "$", "a$b", "ab$", "€", "a b"]);
  });

  it("not [^…]: the strings made of the class only", async () => {
    await admitsExactlyValid({ type: "string", not: { pattern: "[^a-zA-Z0-9.,()@&' -]" } }, ["", "Ab 1.2", "O'Neil & Co", "a_b", "a!", "é", "(x)-y"]);
  });

  it("untyped: only strings are left (a pattern says nothing of other values, so `not` refuses them)", async () => {
    await admitsExactlyValid({ not: { pattern: "[0-9]+" } }, ["", "abc", "a1", 1, null, true, [], {}]);
  });

  it("a search every string passes leaves nothing", () => {
    expect(compileSchema({ type: "string", not: { pattern: "a*" } }, { unsupported: "strict" })).toMatchObject({ ok: false, error: { code: "unsatisfiable_schema" } });
  });
});
