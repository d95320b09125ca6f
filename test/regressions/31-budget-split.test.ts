// Issue 31, item 5: the static worst-case split of the budget left a nested part a few bytes even at 8,192 (an
// array of records of ten strings: each string got about 9 bytes), so valid values were refused. Under the
// shared split ("shared") a part may use what the others leave at their least; the worst-case split stays the
// default (the grammar alone then keeps a whole value inside the budget, which an unguarded engine needs).

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, utf8Length } from "../../src/grammar/canonical-json.js";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { formatsAjv, tinyModel } from "../grammar/helpers.js";

const ajv = formatsAjv();
let model: LlamaModel;
// The model loads in seconds; a machine shared with other jobs may take longer.
beforeAll(async () => {
  ({ model } = await tinyModel());
}, 120_000);

const names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
const record: JsonSchema = { type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])), additionalProperties: false };
const table: JsonSchema = { type: "object", properties: { rows: { type: "array", items: { type: "array", items: record } } }, required: ["rows"], additionalProperties: false };

async function accepts(schema: JsonSchema, values: unknown[], budgetSplit: "shared" | "worst-case", maxTokens = 8192): Promise<boolean[]> {
  const r = compileSchema(schema, { maxTokens, budgetSplit });
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
  expect(r.value.budgetSplit).toBe(budgetSplit);
  const c = await GrammarChecker.create(model, r.value);
  return values.map((v) => c.checkText(canonicalJson(v)).accepted);
}

describe("shared budget split (issue 31)", () => {
  const long = { rows: [[{ a: "x".repeat(300), j: "y".repeat(40) }]] };
  const many = { rows: [Array.from({ length: 12 }, (_, i) => ({ b: `row ${i}` }))] };
  const invalid = [{ rows: [[{ a: 1 }]] }, { rows: [[{ k: "x" }]] }, { rows: "x" }, {}];

  it("a nested member may use what its siblings leave: a 300-byte string and 12 rows fit at 8,192", async () => {
    expect(utf8Length(canonicalJson(long))).toBeLessThan(400);
    expect(await accepts(table, [long, many], "shared")).toEqual([true, true]);
    expect([long, many].map((v) => ajv.compile(table as object)(v))).toEqual([true, true]);
  });

  it("no invalid value is admitted under the shared split", async () => {
    expect(await accepts(table, invalid, "shared")).toEqual(invalid.map(() => false));
    expect(invalid.map((v) => ajv.compile(table as object)(v))).toEqual(invalid.map(() => false));
  });

  it("the worst-case split keeps every value inside the budget", () => {
    // Issue 38 made "shared" the default; the worst-case split is asked for by engines that cannot guard.
    const r = compileSchema(table, { maxTokens: 2048, budgetSplit: "worst-case" });
    expect(r.ok && r.value.budgetSplit).toBe("worst-case");
    expect(r.ok && r.value.worstCaseTokens).toBeLessThanOrEqual(2048);
  });

  it("recursion ends under the shared split, and a deep value is still admitted", async () => {
    const tree: JsonSchema = { type: "object", properties: { v: { type: "string" }, kids: { type: "array", items: { $ref: "#" } } }, additionalProperties: false };
    let deep: Record<string, unknown> = { v: "leaf" };
    for (let i = 0; i < 8; i++) deep = { v: `level ${i}`, kids: [deep, { v: "x" }] };
    expect(await accepts(tree, [deep, { kids: [{ v: 1 }] }], "shared")).toEqual([true, false]);
  });
});
