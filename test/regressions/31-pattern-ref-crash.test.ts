// Issue 31 (found by the full MaskBench run, Github_hard---o14390): a patternProperties value whose $ref target
// the grammar cannot hold was left out (a subset), but the half-made $ref node stayed cached with no target, and
// the next use of the same $ref crashed the compiler (`Cannot read properties of undefined (reading 'id')`). A
// failed $ref target is now forgotten, so the refusal is a stable error with its pointer, never a crash.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import type { JsonSchema } from "../../src/tools/types.js";

const schema: JsonSchema = {
  type: "object",
  properties: { a: { type: "array", items: { $ref: "#/definitions/d" } } },
  patternProperties: { "^x": { type: "array", items: { $ref: "#/definitions/d" } } },
  definitions: { d: { type: "string", not: { pattern: "yz|a.{11}$" } } },
};

describe("a $ref that failed inside patternProperties (issue 31)", () => {
  it("strict: refused with the pointer of the keyword, no crash", () => {
    const r = compileSchema(schema, { unsupported: "strict" });
    expect(r.ok ? "compiled" : [r.error.code, r.error.path]).toEqual(["unsupported_keyword", "/definitions/d/not"]);
  });

  it("validate: compiles, the keyword left to the validator", () => {
    const r = compileSchema(schema, { unsupported: "validate" });
    expect(r.ok && r.value.constraint.relaxed.map((x) => x.path)).toEqual(["/definitions/d/not"]);
  });
});
