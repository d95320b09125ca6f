// Issue 38: `propertyNames` other than a list of names was not held: a key pattern, or Claude Code's
// `{type: "string"}` (which every key satisfies), were left to the validator under `validate` and refused under
// `strict`. A key pattern now makes the extra members that pattern's members (the key guard keeps them distinct);
// `{type: "string"}` is dropped as saying nothing. Constrained, tool choice required, default options: 20 seeds valid.
import { describe, test } from "vitest";
import { expectValidEverySeed, useTinyRuntime } from "../helpers/seeded-calls.js";

const rt = useTinyRuntime();

const SCHEMAS = {
  "propertyNames pattern beside additionalProperties, minProperties 2": {
    type: "object",
    propertyNames: { pattern: "^[a-c][0-9]$" },
    additionalProperties: { type: "integer", minimum: 0, maximum: 9 },
    minProperties: 2,
  },
  "propertyNames {type: string} (Claude Code's metadata)": {
    type: "object",
    properties: { metadata: { type: "object", propertyNames: { type: "string" }, additionalProperties: {} } },
    required: ["metadata"],
    additionalProperties: false,
  },
};

describe("issue 38: propertyNames beyond a list of names gives a valid call every time", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`${name}: compiled under strict, 20 seeds valid`, async () => {
      await expectValidEverySeed(rt(), schema);
    }, 600_000);
  }
});
