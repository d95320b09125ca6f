// Issue 31, bug 4: `budget_too_small` when the shortest value fits, and not monotonic in maxTokens: an array's
// least-cost estimate in the emitter charged one separator more than the cost table, and the cost table one more
// for an object's members than the emitter writes (the first item or member writes none),
// and an optional member that did not fit its share failed its whole object. Now the least budget the cost table
// names always compiles, and so does every budget above it.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { utf8Length } from "../../src/grammar/canonical-json.js";

const cases: [string, JsonSchema, string][] = [
  ["a non-empty array of strings", { type: "array", items: { type: "string" }, minItems: 1 }, '[""]'],
  ["a tuple", { type: "array", prefixItems: [{ type: "string" }, { type: "string" }], minItems: 2, items: false }, '["", ""]'],
  ["an object with one required member", { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false }, '{"id": ""}'],
  [
    "an object with an optional non-empty array",
    { type: "object", properties: { tags: { type: "array", items: { type: "string" }, minItems: 1 }, id: { type: "string" } }, required: ["id"], additionalProperties: false },
    '{"id": ""}',
  ],
];

describe("least budget (issue 31)", () => {
  for (const [what, schema, shortest] of cases) {
    it(`${what}: every budget from the shortest value's ${utf8Length(shortest)} bytes up compiles`, () => {
      const failing: number[] = [];
      for (let maxTokens = utf8Length(shortest); maxTokens <= 64; maxTokens++) {
        const r = compileSchema(schema, { maxTokens });
        if (!r.ok) failing.push(maxTokens);
      }
      expect(failing).toEqual([]);
    });
  }
});
