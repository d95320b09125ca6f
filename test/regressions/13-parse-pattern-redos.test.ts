// Issue 13, item 11: a tool's `pattern` ran as a backtracking RegExp inside parse(): `^(a+)+$` against 28 `a`s
// and `!` took 1.6 s, doubling per character. Patterns now run on a linear-time engine (re2js), for
// `pattern` and `patternProperties`, with the same answers as ECMAScript on the grammar's pattern subset.
// Issue 26: checked by counting the characters the judgement reads (n against 10·n), never by a wall time.
import { describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";
import { countStringReads, readsAtTenfold } from "../helpers/work-count.js";

const TOOLS = [
  { name: "t", parameters: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } }, required: ["s"] } },
  { name: "p", parameters: { type: "object", patternProperties: { "^(x+x+)+y$": { type: "string" } }, additionalProperties: false } },
];
const call = (name: string, args: object) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe("schema patterns cannot hang the parser", () => {
  it("a catastrophic pattern on a long near-match is judged with work linear in its length", () => {
    const r = parse(call("t", { s: "a".repeat(5000) + "!" }), { tools: TOOLS });
    expect(r.calls).toEqual([]);
    expect(r.errors.map((e) => e.reason)).toEqual(["schema"]);
    expect(parse(call("t", { s: "a".repeat(5000) }), { tools: TOOLS }).calls).toHaveLength(1);
    // 10× the input reads about 10× the characters (backtracking doubles per character).
    const growth = readsAtTenfold((n) => parse(call("t", { s: "a".repeat(n) + "!" }), { tools: TOOLS }), 500);
    expect(growth.small).toBeGreaterThan(500); // the pattern really ran over the value
    expect(growth.ratio, JSON.stringify(growth)).toBeLessThan(15);
  });

  it("a catastrophic patternProperties key is judged with work linear in its length", () => {
    const r = parse(call("p", { ["x".repeat(5000) + "!y"]: "v" }), { tools: TOOLS });
    expect(parse(call("p", { ["x".repeat(5000)]: "v" }), { tools: TOOLS }).calls).toEqual([]);
    expect(r.calls).toEqual([]);
    expect(parse(call("p", { xxy: "v" }), { tools: TOOLS }).calls).toHaveLength(1);
    const growth = readsAtTenfold((n) => parse(call("p", { ["x".repeat(n) + "!y"]: "v" }), { tools: TOOLS }), 500);
    expect(growth.small).toBeGreaterThan(500);
    expect(growth.ratio, JSON.stringify(growth)).toBeLessThan(15);
  });

  it("the read count sees a backtracking-prone engine's work grow faster than linear", () => {
    // The counter itself: a quadratic scan reads 100× for 10× the input, so the bound above can fail.
    const quadratic = (n: number) => {
      const s = "a".repeat(n);
      let k = 0;
      for (let i = 0; i < n; i++) for (let j = i; j < n; j++) k += s.charCodeAt(j) & 1;
      return k;
    };
    expect(readsAtTenfold(quadratic, 50).ratio).toBeGreaterThan(50);
    expect(countStringReads(() => "abc".charCodeAt(1)).reads).toBe(1);
  });
});
