// Issue 31, bug 2: cheap recursion (`e = number | {"n": e}`) compiled at maxTokens 2048 and overflowed the stack at
// 4096: every level of nesting cost several emit frames. Nesting is now bounded (MAX_EMIT_DEPTH), so every
// budget compiles, and a larger budget never admits less.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";

const e = { anyOf: [{ type: "number" }, { type: "object", properties: { n: { $ref: "#" } }, required: ["n"], additionalProperties: false }] };

describe("cheap recursion (issue 31)", () => {
  for (const maxTokens of [2048, 4096, 8192]) {
    it(`compiles at maxTokens ${maxTokens}`, () => {
      const r = compileSchema(e, { maxTokens });
      expect(r.ok ? "ok" : r.error.code).toBe("ok");
    });
  }
});
