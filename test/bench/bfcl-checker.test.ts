import { describe, expect, it } from "vitest";
import { BFCL_ERRORS, checkBfcl, checkerKindOf, standardize } from "../../src/bench/bfcl-checker.js";
import { CHECKER_CASES } from "../fixtures/bfcl/checker-cases.js";

describe(`BFCL AST checker on ${CHECKER_CASES.length} examples in BFCL's format`, () => {
  it.each(CHECKER_CASES)("$category: $rule", (c) => {
    const verdict = checkBfcl(checkerKindOf(c.category), c.functions, c.calls, c.expected, c.rejected ?? 0);
    expect(verdict.ok ? null : verdict.error).toBe(c.want);
  });

  it("covers every error type it can give", () => {
    const seen = new Set(CHECKER_CASES.map((c) => c.want).filter((w) => w !== null));
    expect([...BFCL_ERRORS].filter((e) => !seen.has(e))).toEqual([]);
  });
});

describe("BFCL's routing and string rule", () => {
  it("routes categories as BFCL does: parallel before multiple, relevance ones apart", () => {
    expect(["simple_python", "live_simple", "multiple", "live_multiple", "parallel", "parallel_multiple", "live_parallel_multiple", "irrelevance", "live_irrelevance", "live_relevance"].map(checkerKindOf)).toEqual([
      "simple", "simple", "multiple", "multiple", "parallel", "parallel", "parallel", "irrelevance", "irrelevance", "relevance",
    ]);
  });

  it("drops spaces and ,./-_*^, lowers case, reads ' as \"", () => {
    expect(standardize("San Francisco, CA")).toBe("sanfranciscoca");
    expect(standardize("2024-01-05 10:00")).toBe("2024010510:00");
    expect(standardize("it's A_B*C^d")).toBe('it"sabcd');
  });
});
