// The standing parse fuzz (bench/lib/parse-fuzz.ts), seeded and bounded: at least 20,000 generated outputs,
// each through batch and streaming under random chunkings in all three thinking modes. The generator's oracle
// knows where it put every call: none may come from a fence or reasoning, every valid answer call must come
// out as written, no invalid one may be accepted, and streaming must equal batch. `npm run fuzz` runs longer.
import { describe, expect, it } from "vitest";
import { generateCase } from "../../bench/lib/parse-fuzz-gen.js";
import { runParseFuzz } from "../../bench/lib/parse-fuzz.js";
import { seededRandom } from "../../src/random.js";

describe("parse fuzz", () => {
  it("30,000 outputs: no divergence, no fenced call, no missed or wrongly accepted call, no throw", () => {
    const report = runParseFuzz({ count: 30_000, seed: 13, maxSeconds: 100 });
    expect(report.cases).toBeGreaterThanOrEqual(20_000);
    for (const mode of ["auto", "open", "closed"] as const) expect(report.byThinking[mode]).toBeGreaterThan(report.cases / 4);
    // The oracle has work to do: calls it expects, and many rejected blocks.
    expect(report.expected).toBeGreaterThan(report.cases / 5);
    expect(report.rejected).toBeGreaterThan(report.cases / 5);
    expect(report.examples).toEqual([]);
    expect(report.counts).toEqual({ divergence: 0, fenced_call: 0, missed_call: 0, invalid_accepted: 0, threw: 0 });
  }, 150_000);

  it("generates what the issue asks for: long fences of both kinds, think in all forms, both formats", () => {
    const seen = { backtickRuns: new Set<number>(), tildeRuns: new Set<number>(), loneClose: 0, unclosedThink: 0, bare: 0, hermes: 0, fencedCalls: 0 };
    const r = seededRandom(7);
    for (let i = 0; i < 2000; i++) {
      const fx = generateCase(seededRandom(Math.floor(r() * 2 ** 32)));
      for (const m of fx.text.matchAll(/\n {0,3}(`{3,}|~{3,})/g)) (m[1]![0] === "`" ? seen.backtickRuns : seen.tildeRuns).add(m[1]!.length);
      if (/^[^<]*<\/think>/.test(fx.text)) seen.loneClose++;
      if (fx.text.lastIndexOf("<think>") > fx.text.lastIndexOf("</think>")) seen.unclosedThink++;
      if (/\n[ \t]*<function=/.test(fx.text)) seen.bare++;
      if (fx.text.includes('<tool_call>\n{"name"')) seen.hermes++;
      // Calls the oracle forbids: call text inside a fence or reasoning span.
      for (const [a, b] of fx.forbidden) if (/<tool_call>|<function=/.test(fx.text.slice(a, b))) seen.fencedCalls++;
    }
    for (let n = 3; n <= 8; n++) {
      expect(seen.backtickRuns).toContain(n);
      expect(seen.tildeRuns).toContain(n);
    }
    for (const k of ["loneClose", "unclosedThink", "bare", "hermes", "fencedCalls"] as const) expect(seen[k]).toBeGreaterThan(50);
  });
});
