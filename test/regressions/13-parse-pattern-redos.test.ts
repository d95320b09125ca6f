// Issue 13, item 11: a tool's `pattern` ran as a backtracking RegExp inside parse(): `^(a+)+$` against 28 `a`s
// and `!` took 1.6 s, doubling per character. Patterns now run on a linear-time engine (re2js), for
// `pattern` and `patternProperties`, with the same answers as ECMAScript on the grammar's pattern subset.
import { describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";

const TOOLS = [
  { name: "t", parameters: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } }, required: ["s"] } },
  { name: "p", parameters: { type: "object", patternProperties: { "^(x+x+)+y$": { type: "string" } }, additionalProperties: false } },
];
const call = (name: string, args: object) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe("schema patterns cannot hang the parser", () => {
  it("a catastrophic pattern on a long near-match is judged in milliseconds", () => {
    const t0 = performance.now();
    const r = parse(call("t", { s: "a".repeat(5000) + "!" }), { tools: TOOLS });
    expect(performance.now() - t0).toBeLessThan(500);
    expect(r.calls).toEqual([]);
    expect(r.errors.map((e) => e.reason)).toEqual(["schema"]);
    expect(parse(call("t", { s: "a".repeat(5000) }), { tools: TOOLS }).calls).toHaveLength(1);
  });

  it("a catastrophic patternProperties key is judged in milliseconds", () => {
    const t0 = performance.now();
    const r = parse(call("p", { ["x".repeat(5000)]: "v" }), { tools: TOOLS });
    expect(performance.now() - t0).toBeLessThan(500);
    expect(r.calls).toEqual([]);
    expect(parse(call("p", { xxy: "v" }), { tools: TOOLS }).calls).toHaveLength(1);
  });
});
