// Issue 13, item 2: one schema must not hang the compiler (and with it the server's event loop). Bounds from the
// schema are costed in closed form, and a schema over a stated limit is refused with `schema_too_large` at the
// keyword's JSON pointer. Before the fix, minItems/maxItems of 1e9 or 1e15 looped once per item (a hang), a
// 20,000-value enum compiled for seconds (quadratic de-duplication), and a deep schema overflowed the stack.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { compileSchema, compileToolGrammar, SCHEMA_LIMITS } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { renderCall, tinyModel } from "../grammar/helpers.js";

const HANG = { timeout: 10_000 };
const tool = (parameters: unknown): ToolDefinition[] => [{ name: "t", description: "", parameters: parameters as ToolDefinition["parameters"] }];
const listOf = (bounds: Record<string, number>) => ({
  type: "object",
  properties: { a: { type: "array", items: { type: "integer", minimum: 0, maximum: 9 }, ...bounds } },
  required: ["a"],
});
const codeAndPath = (r: { ok: boolean; error?: { code: string; path?: string } }) => (r.ok ? "ok" : [r.error!.code, r.error!.path]);

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
});

describe("huge item bounds", () => {
  for (const n of [1e9, 1e15]) {
    it(`refuses minItems ${n} in a tool schema and in a response schema`, HANG, () => {
      expect(codeAndPath(compileToolGrammar(tool(listOf({ minItems: n })), { toolChoice: "required" }))).toEqual(["schema_too_large", "/properties/a/minItems"]);
      const answer = compileToolGrammar([], { toolChoice: "none", answerSchema: listOf({ minItems: n }) });
      expect(codeAndPath(answer)).toEqual(["schema_too_large", "/properties/a/minItems"]);
      expect(codeAndPath(compileSchema({ type: "array", minItems: n }))).toEqual(["schema_too_large", "/minItems"]);
    });

    it(`compiles maxItems ${n} into a correct, budget-bounded grammar (tool and response schema)`, HANG, async () => {
      const g = compileToolGrammar(tool(listOf({ maxItems: n })), { toolChoice: "required", maxTokens: 128 });
      expect(g.ok).toBe(true);
      if (!g.ok) return;
      const c = await GrammarChecker.create(model, g.value);
      expect(c.checkText(renderCall("hermes", "t", { a: [1, 2, 3] })).accepted).toBe(true);
      expect(c.checkText(renderCall("hermes", "t", { a: ["x"] })).accepted).toBe(false);
      const answer = compileToolGrammar([], { toolChoice: "none", answerSchema: { type: "array", items: { type: "boolean" }, maxItems: n }, maxTokens: 64 });
      expect(answer.ok).toBe(true);
      if (!answer.ok) return;
      const a = await GrammarChecker.create(model, answer.value);
      expect(a.checkText("[true, false]").accepted).toBe(true);
      expect(a.checkText("[1]").accepted).toBe(false);
    });
  }

  it("compiles minItems and maxItems of 1e15 on a tuple whose items are closed", HANG, () => {
    const r = compileSchema({ type: "array", prefixItems: [{ type: "boolean" }], items: false, minItems: 1, maxItems: 1e15 });
    expect(r.ok).toBe(true);
  });
});

describe("schema size limits", () => {
  it("refuses a 20,000-value enum inside an object at its pointer", HANG, () => {
    const values = Array.from({ length: 20_000 }, (_, i) => `value-${i}`);
    const schema = { type: "object", properties: { a: { enum: values } }, required: ["a"] };
    expect(codeAndPath(compileToolGrammar(tool(schema), { toolChoice: "required" }))).toEqual(["schema_too_large", "/properties/a/enum"]);
    expect(codeAndPath(compileSchema(schema))).toEqual(["schema_too_large", "/properties/a/enum"]);
  });

  it("refuses a schema nested deeper than the limit, however deep", HANG, () => {
    for (const levels of [SCHEMA_LIMITS.maxDepth, 10_000]) {
      let deep: unknown = { type: "string" };
      for (let i = 0; i < levels; i++) deep = { type: "array", items: deep };
      const r = compileSchema(deep as object);
      expect(r.ok ? "ok" : r.error.code).toBe("schema_too_large");
    }
  });

  it("refuses a $ref/allOf chain that expands exponentially", HANG, () => {
    const defs: Record<string, unknown> = { d0: { type: "string" } };
    for (let i = 1; i <= 30; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i - 1}`, maxLength: 5 }, { $ref: `#/$defs/d${i - 1}`, minLength: 1 }] };
    const r = compileSchema({ $defs: defs, $ref: "#/$defs/d30" });
    expect(r.ok ? "ok" : r.error.code).toBe("schema_too_large");
  });

  it("refuses integer bounds beyond what the grammar spells", HANG, () => {
    expect(codeAndPath(compileSchema({ type: "integer", minimum: 1e300 }))).toEqual(["schema_too_large", "/minimum"]);
  });
});
