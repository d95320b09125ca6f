// patternProperties whose patterns share a literal prefix but no key (src/grammar/pattern-properties.ts): told
// apart by their automata, each pattern's keys get that pattern's value alone. Taken as overlapping, a string
// pattern and a boolean one merged into no value and both lost their keys (MaskBench o12335:
// `^contacts:([0-3]{1}):surName$` beside `^contacts:([0-3]{1}):isSirtfiSecurityContact$`).

import { describe, expect, it } from "vitest";
import { planPatterns } from "../../src/grammar/pattern-properties.js";
import { admitsExactlyValid } from "./helpers.js";

describe("pattern keys told apart by their automata (issue 49)", () => {
  it("two anchored patterns with one prefix: each key keeps its own value", async () => {
    const schema = { type: "object", patternProperties: { "^c:([0-3]{1}):name$": { type: "string" }, "^c:([0-3]{1}):on$": { type: "boolean" } }, additionalProperties: false };
    await admitsExactlyValid(schema, [{}, { "c:0:name": "x" }, { "c:1:on": true }, { "c:0:name": "x", "c:3:on": false }, { "c:0:name": true }, { "c:1:on": "x" }, { "c:4:on": true }, { "c:0:other": 1 }]);
  });

  it("patterns that do share keys still merge their values", () => {
    const plan = planPatterns({ "^c:[0-3]:x$": { type: "string" }, "^c:[0-3]": { maxLength: 3 }, "^d": { type: "integer" } }, [], false, "");
    if ("code" in plan) throw new Error(plan.message);
    const first = plan.keyed.find((k) => k.pattern === "^c:[0-3]:x$");
    expect(first?.value).toEqual({ allOf: [{ type: "string" }, { maxLength: 3 }] });
    expect(plan.keyed.find((k) => k.pattern === "^d")?.value).toEqual({ type: "integer" });
  });
});
