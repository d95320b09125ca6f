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

// A pattern whose schema admits no value bans its keys: merged into every key that might match it, it left those
// keys no value at all. Extra keys now avoid the patterns by an automaton where no first character tells them
// apart, and a pattern of a few banned words is taken out of the others' keys.
describe("pattern keys a pattern bans (issue 49)", () => {
  it("`.*` beside a pattern of false matched anywhere in the key (MaskBench o27790)", async () => {
    const schema = { type: "object", patternProperties: { ".*": { type: "array", items: { type: "string" } }, additionalProperties: false }, additionalProperties: false };
    await admitsExactlyValid(schema, [{}, { tray1: ["a"] }, { a: [], b: ["x"] }, { a: 1 }, { additionalProperties: [] }, { xadditionalPropertiesy: [] }, { additionalPropertie: [] }]);
  });

  it("open extra keys beside a suffix of `not` every type, through a $ref (MaskBench o4179)", async () => {
    const schema = {
      type: "object",
      definitions: { disallowed: { not: { type: ["array", "boolean", "integer", "number", "null", "object", "string"] } } },
      properties: { event: { type: "string" }, Fine: { $ref: "#/definitions/disallowed" } },
      patternProperties: { "^(Materials|Signals)$": { type: "array" }, "_Localised$": { $ref: "#/definitions/disallowed" } },
      additionalProperties: true,
    };
    await admitsExactlyValid(schema, [{}, { event: "x", StationName: "L" }, { Materials: [1] }, { Materials: 1 }, { Name_Localised: "x" }, { _Localised: 1 }, { Fine: 1 }, { Name_Localisedx: 2 }]);
  });

  it("a pattern of banned words is taken out of a wider pattern's keys (MaskBench o366)", async () => {
    // o366's `^\w[-\w_]*$`, bounded so that its keys' longest spelling fits this test's 256-byte budget.
    const schema = { type: "object", patternProperties: { "^\\w[-\\w_]{0,15}$": { type: "integer" }, "^(relationships|links)$": { not: {} } }, additionalProperties: false };
    await admitsExactlyValid(schema, [{}, { title: 1 }, { title: "x" }, { links: 1 }, { relationships: 2 }, { link: 3, linksx: 4 }, { "-a": 1 }]);
  });
});
