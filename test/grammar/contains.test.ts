// contains / minContains / maxContains held by the rewrite (src/grammar/contains.ts): every array the grammar
// admits is valid (judged by ajv), over every array of up to 4 items from a small alphabet; and the rewrite's
// documented shape (the matching items together, first or after at most 8 that do not match) is what it admits. Beside prefixItems (issue 49) the prefix items count
// too: judged with qtc's engine (text-judge) over every array of up to 5 items.

import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { layOut, planContains, slotOf } from "../../src/grammar/contains.js";
import type { Node } from "../../src/grammar/schema-nodes.js";
import { judgeTextWithGbnf } from "../../src/engine/text-judge.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { tinyModel } from "./helpers.js";

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

/** Every array of 0..`longest` items drawn from `alphabet`. */
function arrays(alphabet: readonly unknown[], longest = 4): unknown[][] {
  const out: unknown[][] = [[]];
  let layer: unknown[][] = [[]];
  for (let n = 1; n <= longest; n++) {
    layer = layer.flatMap((a) => alphabet.map((x) => [...a, x]));
    out.push(...layer);
  }
  return out;
}

const CASES: [string, JsonSchema, unknown[]][] = [
  ["contains a const, minContains 2", { type: "array", items: { type: "integer", minimum: 0, maximum: 9 }, contains: { const: 7 }, minContains: 2 }, [1, 7]],
  ["contains from an enum, maxContains 1", { type: "array", items: { enum: ["a", "b"] }, contains: { const: "a" }, maxContains: 1 }, ["a", "b"]],
  ["contains a bound, minContains 1, maxContains 2", { type: "array", items: { type: "integer", minimum: 0, maximum: 20 }, contains: { minimum: 10 }, maxContains: 2 }, [3, 12]],
  ["minContains 0 and maxContains 0 beside an enum (no matching item)", { type: "array", items: { enum: [1, 2] }, contains: { const: 2 }, minContains: 0, maxContains: 0 }, [1, 2]],
];

describe("contains", () => {
  for (const [what, schema, alphabet] of CASES) {
    it(`${what}: every admitted array is valid, and one is admitted`, async () => {
      const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
      if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
      const c = await GrammarChecker.create(model, r.value);
      const valid = new Ajv2020({ strict: false }).compile(schema);
      let admitted = 0;
      for (const a of arrays(alphabet)) {
        const text = JSON.stringify(a).replace(/,/g, ", ");
        if (!c.checkText(text).accepted) continue;
        admitted++;
        expect(valid(a), text).toBe(true);
      }
      expect(admitted).toBeGreaterThan(0);
    });
  }

  it("admits the matching items together, after at most 8 that do not match: [7, 7, 1] and [1, 7, 7] are written, [7, 1, 7] (valid too) is not (a documented subset)", async () => {
    const schema = CASES[0]![1];
    const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
    if (!r.ok) throw new Error(r.error.message);
    const c = await GrammarChecker.create(model, r.value);
    expect(c.checkText("[7, 7, 1]").accepted).toBe(true);
    expect(c.checkText("[1, 7, 7]").accepted).toBe(true);
    expect(c.checkText("[1, 2, 3, 7, 7, 4]").accepted).toBe(true);
    expect(c.checkText("[7, 1, 7]").accepted).toBe(false);
  });

  it("writes the item contains asks for after others (clang-format's QualifierOrder: `type` last), up to 8 of them", () => {
    const schema = { type: "array", contains: { enum: ["type"] }, items: { enum: ["const", "inline", "static", "type"] } };
    const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
    if (!r.ok) throw new Error(r.error.message);
    const judge = (a: string[]) => judgeTextWithGbnf(r.value.gbnf, JSON.stringify(a).replace(/,/g, ", "));
    expect(judge(["const", "inline", "static", "type"])).toBe("accepted");
    expect(judge(["static", "type", "const"])).toBe("accepted");
    expect(judge([...new Array<string>(8).fill("const"), "type"])).toBe("accepted");
    expect(judge([...new Array<string>(9).fill("const"), "type"])).not.toBe("accepted");
    expect(judge(["const", "inline"])).not.toBe("accepted");
  });

  it("an untyped schema's contains constrains its arrays only", async () => {
    const schema = { contains: { const: 7 } };
    const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
    if (!r.ok) throw new Error(r.error.message);
    const c = await GrammarChecker.create(model, r.value);
    for (const [text, ok] of [["[7]", true], ["[1]", false], ["[]", false], ['"x"', true], ["3", true]] as const) expect(c.checkText(text).accepted, text).toBe(ok);
  });

  it("plans nothing without contains; refuses a bad count at its pointer", () => {
    expect(planContains({ type: "array", minContains: 2 }, "")).toBeUndefined();
    expect(planContains({ type: "array", contains: {}, minContains: -1 }, "/a")).toMatchObject({ code: "invalid_schema", path: "/a/minContains" });
  });
});

const spell = (a: unknown): string => JSON.stringify(a).replace(/,/g, ", ");
const prefixed = (x: Record<string, unknown>): JsonSchema => ({ type: "array", prefixItems: [{ const: 1 }, { const: 2 }], contains: { type: "integer", minimum: 100 }, ...x });

/** [what, schema, alphabet, arrays that must be admitted, arrays that must be refused]. */
const PREFIX_CASES: [string, JsonSchema, unknown[], unknown[][], unknown[][]][] = [
  ["prefix items no value of which matches (issue 49's target)", prefixed({}), [1, 2, 150, "x"], [[1, 2, 150], [1, 2, 150, "x"]], [[1, 2], [], [1], [1, 150], [2, 1, 150], [1, 2, 5, "x"]]],
  ["the same with items", prefixed({ items: { type: "integer" } }), [1, 2, 150], [[1, 2, 150], [1, 2, 150, 1]], [[1, 2], [1, 2, "x", 150], [1, 150]]],
  ["the same with minContains 2, maxContains 3", prefixed({ items: { type: "integer" }, minContains: 2, maxContains: 3 }), [1, 2, 150], [[1, 2, 150, 150], [1, 2, 150, 150, 1]], [[1, 2, 150], [1, 2, 150, 150, 150, 150], [1, 2]]],
  ["prefix items that may match count: the first is made to", { type: "array", prefixItems: [{ type: "integer" }, { type: "integer" }], items: { type: "integer" }, contains: { minimum: 100 }, maxContains: 2 }, [1, 150], [[150], [150, 1], [150, 1, 1]], [[], [1], [1, 1, 1], [150, 150, 150], [150, 150, 1, 150]]],
  ["a prefix item every value of which matches counts toward maxContains", { type: "array", prefixItems: [{ enum: [1, 150] }, { const: 150 }], items: { enum: [1, 150] }, contains: { minimum: 100 }, minContains: 1, maxContains: 2 }, [1, 150], [[150], [150, 150], [150, 150, 1]], [[150, 150, 150], [150, 1], [1], [1, 150, 150, 150]]],
  ["minContains 0, maxContains 0: no prefix item matches", { type: "array", prefixItems: [{ enum: [1, 150] }], items: { enum: [1, 150] }, contains: { const: 150 }, minContains: 0, maxContains: 0 }, [1, 150], [[], [1], [1, 1]], [[150], [1, 150]]],
  ["prefix items and no items after them", { type: "array", prefixItems: [{ enum: [1, 150] }, { enum: [1, 150] }, { enum: [1, 150] }], items: false, contains: { const: 150 }, minContains: 2 }, [1, 150], [[150, 150], [150, 150, 1]], [[150], [1, 150, 150, 1]]],
];

describe("contains beside prefixItems (issue 49): the prefix items count", () => {
  for (const [what, schema, alphabet, admitted, refused] of PREFIX_CASES) {
    it(`${what}: every array qtc's engine admits is valid, and the listed ones are judged as said`, () => {
      const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
      if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
      // allErrors as qtc's validator has it: without it ajv 8.20 skips `contains` on [] beside prefixItems (valid0 unset).
      const valid = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
      const admits = (a: unknown) => judgeTextWithGbnf(r.value.gbnf, spell(a)) === "accepted";
      for (const a of arrays(alphabet, 5)) if (admits(a)) expect(valid(a), spell(a)).toBe(true);
      for (const a of admitted) expect(admits(a), spell(a)).toBe(true);
      for (const a of refused) expect(admits(a), spell(a)).toBe(false);
      // The refused ones are invalid, not merely outside the subset.
      for (const a of refused) expect(valid(a), spell(a)).toBe(false);
    });
  }

  it("an items list (draft 7) is held as prefixItems are", () => {
    const schema = { type: "array", items: [{ const: 1 }], additionalItems: { type: "integer" }, contains: { minimum: 100 } };
    const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
    if (!r.ok) throw new Error(r.error.message);
    const valid = new Ajv({ strict: false, allErrors: true }).compile(schema);
    let admitted = 0;
    for (const a of arrays([1, 150], 5)) {
      if (judgeTextWithGbnf(r.value.gbnf, spell(a)) !== "accepted") continue;
      admitted++;
      expect(valid(a), spell(a)).toBe(true);
    }
    expect(admitted).toBeGreaterThan(0);
  });

  it("refuses, at contains or maxContains, where a prefix item it cannot tell from contains would decide the count", () => {
    // "an a twelve characters from the end" takes 2^12 states as a DFA: past what regex-dfa.ts builds.
    const must = { type: "array", prefixItems: [{ type: "string", pattern: "^a" }], items: false, contains: { pattern: "^[ab]*a[ab]{11}$" } };
    expect(compileSchema(must, { unsupported: "strict" })).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/contains" } });
    const held = { ...must, minContains: 0, maxContains: 0, minItems: 1 };
    expect(compileSchema(held, { unsupported: "validate" })).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/maxContains" } });
    // Where the item need not be written, the array stops before it.
    const r = compileSchema({ ...must, minContains: 0, maxContains: 0 }, { maxTokens: 64, unsupported: "strict" });
    if (!r.ok) throw new Error(r.error.message);
    expect(judgeTextWithGbnf(r.value.gbnf, "[]")).toBe("accepted");
    expect(judgeTextWithGbnf(r.value.gbnf, '["ab"]')).toBe("rejected");
  });

  it("a prefix of items none of which can match, and no items after them: unsatisfiable, named at contains", () => {
    const r = compileSchema({ type: "array", prefixItems: [{ const: 1 }], items: false, contains: { const: 2 } }, { unsupported: "strict" });
    expect(r).toMatchObject({ ok: false, error: { code: "unsatisfiable_schema", path: "/contains" } });
  });

  it("layOut: matching items first, then rest ∧ contains; under maxContains the others do not match, or the array is cut", () => {
    let id = 0;
    const node = (): Node => ({ id: id++, path: "", hint: "x", k: "null" });
    const never = (): Node => ({ id: id++, path: "", hint: "x", k: "union", options: [] });
    const [p, m, o] = [node(), node(), node()];
    // Two prefix positions that may match, items that cannot be told from contains: cut after one more.
    const open = slotOf(p, m, o);
    const rest = slotOf(node(), node(), undefined);
    const laid = layOut([open, open], rest, 1, 2, 0, undefined);
    expect(laid).toMatchObject({ prefix: [m, o], items: rest.plain, minItems: 1, maxItems: 3 });
    // A position no value of which matches stays as it is; the matches come after the prefix.
    const zero = slotOf(p, never(), undefined);
    expect(layOut([zero], rest, 2, Infinity, 0, undefined)).toMatchObject({ prefix: [p, rest.match, rest.match], minItems: 3 });
    expect(layOut([zero], null, 1, Infinity, 0, undefined)).toEqual({ never: true });
  });
});
