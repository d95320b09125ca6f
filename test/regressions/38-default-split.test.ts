// Issue 38: the README's MaskBench figure is measured with the shared budget split, but the runtime and `qtc serve`
// compiled with the worst-case split (103 of 483 checked schemas refused a valid instance that way). The shared
// split is now the default everywhere a budget guard runs; engines without one keep worst-case and say so.
import { describe, expect, it } from "vitest";
import { MASKBENCH_DEFAULTS } from "../../bench/lib/maskbench.js";
import { WORST_CASE_SPLIT_NOTE } from "../../src/engines/remote-grammar.js";
import { hermes } from "../../src/formats/index.js";
import { compileSchema, compileToolGrammar, GrammarCache, GRAMMAR_DEFAULTS, SCHEMA_GRAMMAR_DEFAULTS } from "../../src/grammar/index.js";
import { grammarUse } from "../../src/runtime/result.js";
import { turnGrammarSource } from "../../src/runtime/grammar-source.js";
import type { JsonSchema, ToolDefinition } from "../../src/tools/types.js";

const record: JsonSchema = { type: "object", properties: { a: { type: "string" }, b: { type: "array", items: { type: "string" } } }, required: ["a"], additionalProperties: false };
const tools: ToolDefinition[] = [{ name: "save", parameters: { type: "object", properties: { rows: { type: "array", items: record } }, required: ["rows"], additionalProperties: false } }];
const options = { format: hermes, toolChoice: "required" as const, parallel: false, maxCalls: 1 };

describe("issue 38: the default path is the measured path", () => {
  it("compileSchema and compileToolGrammar default to the shared split, and their reports say so", () => {
    expect(GRAMMAR_DEFAULTS.budgetSplit).toBe("shared");
    expect(SCHEMA_GRAMMAR_DEFAULTS.budgetSplit).toBe("shared");
    const value = compileSchema(record);
    expect(value.ok && [value.value.budgetSplit, value.value.constraint.budgetSplit]).toEqual(["shared", "shared"]);
    const calls = compileToolGrammar(tools, { toolChoice: "required" });
    expect(calls.ok && [calls.value.budgetSplit, calls.value.constraint.budgetSplit]).toEqual(["shared", "shared"]);
  });

  it("MaskBench compiles what compileSchema compiles by default", () => {
    expect([MASKBENCH_DEFAULTS.budgetSplit, MASKBENCH_DEFAULTS.unsupported]).toEqual([SCHEMA_GRAMMAR_DEFAULTS.budgetSplit, SCHEMA_GRAMMAR_DEFAULTS.unsupported]);
    const bench = compileSchema(record, { maxTokens: MASKBENCH_DEFAULTS.maxTokens, unsupported: MASKBENCH_DEFAULTS.unsupported, budgetSplit: MASKBENCH_DEFAULTS.budgetSplit });
    const plain = compileSchema(record, { maxTokens: MASKBENCH_DEFAULTS.maxTokens });
    expect(bench.ok && plain.ok && bench.value.gbnf === plain.value.gbnf).toBe(true);
  });

  it("the runtime compiles a guarded turn's grammar exactly as MaskBench's split and policy do, and guards it", () => {
    const grammar = turnGrammarSource(tools, options, new GrammarCache(), true)("start", 2048);
    const measured = compileToolGrammar(tools, { ...options, maxTokens: 2048, thinking: false, phase: "start", budgetSplit: MASKBENCH_DEFAULTS.budgetSplit, unsupported: MASKBENCH_DEFAULTS.unsupported });
    expect(measured.ok).toBe(true);
    expect(grammar?.compiled.gbnf).toBe(measured.ok ? measured.value.gbnf : undefined);
    // A whole call may outgrow the budget under the shared split: the budget guard closes it in time.
    expect(grammar?.guarded).toBe(true);
    expect(grammarUse(grammar!.compiled.constraint, "constrained")?.budgetSplit).toBe("shared");
  });

  it("an engine that cannot run the guard keeps the worst-case split, and its results say so", () => {
    const grammar = turnGrammarSource(tools, options, new GrammarCache(), false)("start", 2048);
    expect(grammar?.compiled.budgetSplit).toBe("worst-case");
    expect(grammar?.guarded).toBe(false);
    expect(grammar!.compiled.worstCaseCallTokens).toBeLessThanOrEqual(2048);
    expect(WORST_CASE_SPLIT_NOTE).toContain("worst-case");
  });
});
