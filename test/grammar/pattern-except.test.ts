// patternProperties beside listed names the pattern also matches, under additionalProperties false
// (src/grammar/pattern-except.ts; issue 49's MaskBench coverage: `^[a-zA-Z0-9_]*$` keys beside listed members):
// the pattern's keys never spell a listed name (whose value must satisfy both schemas), and the grammar admits
// exactly the objects qtc's validator accepts.

import { describe, expect, it } from "vitest";
import { patternWithout } from "../../src/grammar/pattern-except.js";
import { admitsExactlyValid } from "./helpers.js";

describe("pattern keys without the listed names they match (issue 49)", () => {
  it("a listed name's value must satisfy its own schema and the pattern's: never spelled as a pattern key", async () => {
    const schema = { type: "object", properties: { id: { type: "integer", minimum: 0 } }, patternProperties: { "^[a-z]{1,8}$": { type: "integer" } }, additionalProperties: false };
    await admitsExactlyValid(schema, [{}, { id: 1 }, { id: -1 }, { id: "x" }, { ab: -5 }, { id: 2, ab: 1 }, { i: 3 }, { idx: -1 }, { AB: 1 }, { ab: "x" }, { id: -2, ab: 1 }]);
  });

  it("several listed names, one a prefix of another", async () => {
    const schema = { type: "object", properties: { a: { const: 1 }, ab: { const: 2 } }, patternProperties: { "^[a-c]{1,3}$": { type: "boolean" } }, additionalProperties: false };
    await admitsExactlyValid(schema, [{}, { a: 1 }, { ab: 2 }, { a: true }, { ab: false }, { abc: true }, { b: false }, { c: 1 }, { abcd: true }, { a: 1, ab: 2, ac: true }]);
  });

  it("a pattern that matches only listed names adds no keys", async () => {
    const schema = { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, patternProperties: { "^(a|b)$": { minimum: 0 } }, additionalProperties: false };
    await admitsExactlyValid(schema, [{}, { a: 1 }, { a: -1 }, { a: 3, b: 2 }, { c: 1 }]);
    expect(patternWithout("^(a|b)$", ["a", "b"])).toBeNull();
  });

  it("the pattern written without the words holds exactly the pattern's other strings", () => {
    const text = patternWithout("^[a-e]{1,2}$", ["a", "cd"]);
    expect(text).toBeTypeOf("string");
    const [without, whole] = [new RegExp(text!, "u"), /^[a-e]{1,2}$/u];
    for (const s of ["", "a", "b", "cd", "c", "dc", "aa", "abc", "f", "ce", "e"]) expect(without.test(s), s).toBe(whole.test(s) && s !== "a" && s !== "cd");
  });
});
