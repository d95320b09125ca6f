// The tokenCost rows of `npm run bench:grammar`: the cost columns (mean, p50, p99, p99.9) come from the same
// samples; a walk picks through one helper whatever shape the matcher answers in (a listed set, every id but some
// banned ones, or free text over the whole vocabulary); the table shows suite, vocabulary and the new columns; a
// profiled qtc row (`--profile`) prints its slow tokens by cause under the row, a row without a profile none.

import { expect, test } from "vitest";
import { costStats, mean, pickNext, quantile, tokenCostTable, type TokenCostRow } from "../../bench/lib/grammar-token-cost.js";
import type { NextTokens } from "../../src/engine/matcher.js";

const row: TokenCostRow = {
  engine: "qtc",
  suite: "tools",
  label: "5 harness",
  vocabSize: 151936,
  tools: "5 harness",
  toolCount: 5,
  tokens: 1520,
  avgUs: 40,
  p50Us: 3,
  p99Us: 300,
  p999Us: 4100,
  firstMaskMs: 1.4,
  replaced: 65,
};

test("the cost columns come from the same samples: mean, and p50 / p99 / p99.9 by rank", () => {
  const xs = Array.from({ length: 1000 }, (_, i) => 1000 - i);
  const s = costStats(xs);
  expect(s).toEqual({ tokens: 1000, avgUs: 500.5, p50Us: quantile(xs, 0.5), p99Us: quantile(xs, 0.99), p999Us: quantile(xs, 0.999) });
  expect([s.p50Us, s.p99Us, s.p999Us]).toEqual([501, 991, 1000]);
  expect(costStats([])).toEqual({ tokens: 0, avgUs: 0, p50Us: 0, p99Us: 0, p999Us: 0 });
  expect(mean([1, 2, 6])).toBe(3);
});

function seeded(seed = 1): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

/** A bitset mask over 100 ids allowing exactly `ids`. */
function bitsOf(ids: readonly number[]): NextTokens {
  const allowed = new Uint32Array(4);
  for (const t of ids) allowed[t >>> 5]! |= 1 << (t & 31);
  return { kind: "bits", allowed, count: ids.length, vocabSize: 100 };
}

test("a walk picks among a listed set, or among the set bits of a bitset", () => {
  const random = seeded();
  for (let i = 0; i < 200; i++) expect([7, 9, 11]).toContain(pickNext({ kind: "set", tokens: [7, 9, 11] }, 100, random));
  expect(pickNext({ kind: "set", tokens: [] }, 100, random)).toBeUndefined();
  const odd = bitsOf(Array.from({ length: 50 }, (_, i) => i * 2 + 1));
  for (let i = 0; i < 200; i++) expect(pickNext(odd, 100, random)! % 2).toBe(1);
  // Nearly nothing allowed: picked from the set bits, not by endless rejection.
  expect(pickNext(bitsOf([99]), 100, random)).toBe(99);
  expect(pickNext(bitsOf([]), 100, random)).toBeUndefined();
});

test("the table shows suite, vocabulary, avg, p50, p99, p99.9, first mask and replaced per row", () => {
  const lines = tokenCostTable([row, { ...row, engine: "xgrammar", suite: "maskbench", label: "maskbench 40 of 9092", vocabSize: 248320, replaced: 0, schemas: 38, skipped: 2, skippedBy: { schema_too_large: 2 } }]);
  const head = lines.find((l) => l.includes("p99.9"))!;
  for (const col of ["suite", "label", "vocab", "engine", "avg", "p50", "p99", "p99.9", "first", "tokens", "replaced"]) expect(head).toContain(col);
  const qtc = lines.find((l) => l.includes("5 harness"))!;
  expect(qtc.split(/\s+/).filter(Boolean)).toEqual(["tools", "5", "harness", "152k", "qtc", "40", "3", "300", "4100", "1.4", "1520", "65"]);
  expect(lines.some((l) => l.includes("maskbench 40 of 9092") && l.includes("248k") && l.includes("xgrammar"))).toBe(true);
  expect(lines).toContain("    schemas walked 38, skipped 2 (schema_too_large 2)");
});

test("a profiled row lists its tokens over the p99 target by the part of the step that cost most", () => {
  const lines = tokenCostTable([{ ...row, slow: { "mask (wide)": 2, forced: 1 } }]);
  expect(lines.some((l) => l.includes("over 2000 µs: mask (wide) 2, forced 1; replaced 65"))).toBe(true);
  expect(lines.some((l) => l.includes("over 2000 µs: none"))).toBe(false);
  expect(tokenCostTable([{ ...row, slow: {} }]).some((l) => l.includes("over 2000 µs: none"))).toBe(true);
});

test("a row without a profile prints no slow-token line", () => {
  expect(tokenCostTable([row]).some((l) => l.includes("over 2000"))).toBe(false);
});
