// The tokenCost table of `npm run bench:grammar`: a profiled qtc row (`--profile`) prints its slow tokens by cause
// under the row; a row without a profile prints none.

import { expect, test } from "vitest";
import { tokenCostTable, type TokenCostRow } from "../../bench/lib/grammar-token-cost.js";

const row: TokenCostRow = { engine: "qtc", tools: "5 harness", toolCount: 5, p50Us: 3, p99Us: 300, firstMaskMs: 1.4, tokens: 1520, replaced: 65 };

test("a profiled row lists its tokens over the p99 target by the part of the step that cost most", () => {
  const lines = tokenCostTable([{ ...row, slow: { "mask (wide)": 2, forced: 1 } }]);
  expect(lines.some((l) => l.includes("over 2000 µs: mask (wide) 2, forced 1; replaced 65"))).toBe(true);
  expect(lines.some((l) => l.includes("over 2000 µs: none"))).toBe(false);
  expect(tokenCostTable([{ ...row, slow: {} }]).some((l) => l.includes("over 2000 µs: none"))).toBe(true);
});

test("a row without a profile prints no slow-token line", () => {
  expect(tokenCostTable([row]).some((l) => l.includes("over 2000"))).toBe(false);
});
