import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { byteLevelOrder, byteSymbols, fromByteLevel, toByteLevel } from "../../src/model/byte-level.js";
import { qwen3TokenizerFiles } from "../../src/model/qwen3-vocab.js";
import { checkPairs, isUncertainId, mergeResults, placeGaps, tokensFromMerges, type RealPair } from "../../src/model/qwen35-bpe.js";

interface TokenizerJson {
  model: { vocab: Record<string, number>; merges: Array<string | [string, string]> };
}

const qwen3 = JSON.parse(readFileSync(qwen3TokenizerFiles().tokenizer, "utf8")) as TokenizerJson;
const merges = qwen3.model.merges.map((m) => (typeof m === "string" ? m : `${m[0]} ${m[1]}`));
const FIRST_ADDED = 151643;

/** The text of a byte-level token when its bytes are whole UTF-8 (what a real tokenizer's decode gives). */
function textOf(spelling: string): string | null {
  const bytes = fromByteLevel(spelling);
  if (bytes === null) return null;
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : null;
}

/** Real-looking pairs: every `step`-th id of a vocabulary, skipping gaps and tokens that are not whole UTF-8. */
function samplePairs(tokens: readonly string[], gaps: ReadonlySet<number>, step: number): RealPair[] {
  const pairs: RealPair[] = [];
  for (let id = 262; id < tokens.length; id += step) {
    const text = gaps.has(id) ? null : textOf(tokens[id]!);
    if (text !== null) pairs.push({ id, text });
  }
  return pairs;
}

describe("the byte-level alphabet", () => {
  test("each byte's symbol round-trips, and the symbols are the first 256 ids in GPT-2 order", () => {
    const symbols = byteSymbols();
    const order = byteLevelOrder();
    expect(new Set(symbols).size).toBe(256);
    expect(toByteLevel(" \n<think>é")).toBe("ĠĊ<think>Ã©");
    expect(fromByteLevel("ĠĊ<think>Ã©")?.toString("utf8")).toBe(" \n<think>é");
    for (let b = 0; b < 256; b++) expect(qwen3.model.vocab[symbols[b]!]).toBe(order[b]);
  });
});

describe("the rank rule", () => {
  test("Qwen3's tokenizer follows it for every merge: merge i makes id 256 + i", () => {
    const results = mergeResults(merges);
    expect(results).toHaveLength(151387);
    const off = results.filter((r, i) => qwen3.model.vocab[r] !== 256 + i);
    expect(off).toEqual([]);
    const rebuilt = tokensFromMerges(merges, [], FIRST_ADDED);
    const byId = Object.entries(qwen3.model.vocab).sort((a, b) => a[1] - b[1]).map(([t]) => t);
    expect(rebuilt).toEqual(byId);
  });

  test("gaps are placed from sparse real pairs: every id outside an open bracket is exact, every pair matches", () => {
    const gaps = [300, 4000, 4001, 90000, 151641];
    const firstAdded = FIRST_ADDED + gaps.length;
    const truth = tokensFromMerges(merges, gaps, firstAdded);
    const pairs = samplePairs(truth, new Set(gaps), 12);
    const placement = placeGaps(merges, pairs, firstAdded);
    expect(placement.totalGaps).toBe(5);
    expect(placement.mismatches).toEqual([]);
    expect(placement.used).toBe(pairs.length);
    expect(placement.brackets.reduce((n, b) => n + b.gaps, 0)).toBe(5);
    for (const g of gaps) expect(placement.brackets.some((b) => g > b.after && g < b.before)).toBe(true);
    const rebuilt = tokensFromMerges(merges, placement.gaps, firstAdded);
    expect(checkPairs(rebuilt, pairs)).toEqual({ checked: pairs.length, matched: pairs.length, mismatches: [] });
    const wrong = truth.map((t, id) => id).filter((id) => !isUncertainId(placement, id) && rebuilt[id] !== truth[id]);
    expect(wrong).toEqual([]);
    // Four brackets (4000 and 4001 share one), each at most 23 ids wide: the ids left open are counted.
    expect(placement.uncertainIds).toBeGreaterThan(0);
    expect(placement.uncertainIds).toBeLessThanOrEqual(4 * 23);
  });

  test("pairs from a vocabulary in another order fail loudly: most of them conflict", () => {
    // Qwen3's merges, but pairs whose ids follow a shuffled rank order: no placement can agree with them.
    const shuffled = [...merges.slice(0, 1000).reverse(), ...merges.slice(1000)];
    const truth = tokensFromMerges(shuffled, [], FIRST_ADDED);
    const pairs = samplePairs(truth, new Set(), 5).filter((p) => p.id < 1256);
    const placement = placeGaps(merges, pairs, FIRST_ADDED);
    expect(placement.mismatches.length).toBeGreaterThan(pairs.length * 0.9);
    for (const m of placement.mismatches) expect(["out_of_range", "conflict"]).toContain(m.reason);
  });

  test("a lossy text, a byte at the wrong id and a text no merge makes are each named", () => {
    const pairs: RealPair[] = [
      { id: 300, text: "\uFFFDqzx\uFFFD" },
      { id: 5, text: "!" },
      { id: 0, text: "!" },
      { id: 400, text: "no such token here" },
    ];
    const { mismatches } = placeGaps(merges, pairs, FIRST_ADDED);
    expect(mismatches.map((m) => [m.id, m.reason])).toEqual([
      [5, "byte"],
      [300, "lossy"],
      [400, "not_a_token"],
    ]);
  });

  test("the same pair given twice counts once; one text at two ids is a conflict for both", () => {
    const twice = placeGaps(merges, [{ id: 262, text: "   " }, { id: 262, text: "   " }, { id: 271, text: "\n\n" }], FIRST_ADDED);
    expect(twice.mismatches).toEqual([]);
    expect(twice.used).toBe(2);
    const split = placeGaps(merges, [{ id: 262, text: "   " }, { id: 263, text: "   " }, { id: 271, text: "\n\n" }], FIRST_ADDED + 1);
    expect(split.mismatches.map((m) => [m.id, m.reason])).toEqual([
      [262, "conflict"],
      [263, "conflict"],
    ]);
    expect(split.used).toBe(1);
  });
});
