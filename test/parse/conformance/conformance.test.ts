// The parser conformance corpus: cases assembled from peers' public test suites and real Qwen3 outputs
// (sources in cases.jsonl). A case that passed in baseline.json must still pass; an improvement is recorded with
// `QTC_UPDATE_BASELINE=1 npx vitest run --config test/vitest.config.ts test/parse/conformance/conformance.test.ts`.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BASELINE_PATH, judgeCase, loadBaseline, loadCorpus, loadTools } from "./corpus.js";

describe("parser conformance corpus", () => {
  const corpus = loadCorpus();
  const tools = loadTools();

  it("holds at least 200 cases, each with a source and a unique id", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect(new Set(corpus.map((c) => c.id)).size).toBe(corpus.length);
    for (const c of corpus) expect(c.source.length, c.id).toBeGreaterThan(0);
  });

  it("never loses a case the baseline passes, batch and every chunking", () => {
    const baseline = loadBaseline();
    const results: Record<string, "pass" | "fail"> = {};
    const regressions: string[] = [];
    const misses: string[] = [];
    for (const c of corpus) {
      const verdict = judgeCase(c, tools);
      results[c.id] = verdict.pass ? "pass" : "fail";
      if (!verdict.pass) {
        misses.push(`${c.id}: ${verdict.why}`);
        if (baseline[c.id] === "pass") regressions.push(`${c.id}: ${verdict.why}`);
      }
    }
    const passed = Object.values(results).filter((r) => r === "pass").length;
    const rate = ((100 * passed) / corpus.length).toFixed(1);
    console.log(`conformance: ${passed}/${corpus.length} agree (${rate}%)${misses.length ? `\nmisses:\n  ${misses.join("\n  ")}` : ""}`);
    if (process.env.QTC_UPDATE_BASELINE === "1" && regressions.length === 0) {
      writeFileSync(BASELINE_PATH, JSON.stringify(results, null, 1) + "\n");
    }
    expect(regressions).toEqual([]);
  });
});
