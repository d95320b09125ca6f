// `qtc bench --suite bfcl` end to end on the synthetic tiny model (qtc's own fixture questions, read with --data):
// the rows per category and mode, every constrained call valid, the four files; a scripted model shows a right
// answer scores and a wrong one fails with BFCL's error type; flags of the task suite are refused.

import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runQuestion, type BfclReport, type BfclResult } from "../../src/bench/bfcl.js";
import { readBfclCategory } from "../../src/bench/bfcl-data.js";
import type { GenerateResult } from "../../src/runtime/types.js";
import { runCli } from "../helpers/cli.js";
import { tinyModelPath } from "../helpers/models.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/bfcl/data", import.meta.url));
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "qtc-bfcl-run-"));
  await tinyModelPath();
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

// README: qtc bench --suite bfcl --model synthetic:tiny --limit 20 --constrained (run here on qtc's own fixture
// questions with --data, --limit 2 and shorter turns, so it takes seconds).
describe("qtc bench --suite bfcl", () => {
  it("writes rows per category and mode, and every constrained call is valid", async () => {
    const out = path.join(tmp, "run");
    const r = await runCli(["bench", "--suite", "bfcl", "--model", "synthetic:tiny", "--data", FIXTURE, "--categories", "simple_python,parallel,irrelevance", "--limit", "2", "--constrained", "--max-tokens", "160", "--threads", "1", "--out", out, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as BfclReport;
    expect(report.rows.map((row) => `${row.mode} ${row.category} ${row.questions}`)).toEqual([
      "unconstrained simple_python 2", "unconstrained parallel 1", "unconstrained irrelevance 2", "unconstrained overall 5",
      "constrained simple_python 2", "constrained parallel 1", "constrained irrelevance 2", "constrained overall 5",
    ]);
    const constrained = report.rows.filter((row) => row.mode === "constrained" && (row.category === "simple_python" || row.category === "parallel"));
    // Synthetic models run under tool choice "required": the grammar opens a call on every such question.
    expect(constrained.every((row) => row.callRate === 1 && row.blocks > 0 && row.validBlocks === row.blocks)).toBe(true);
    for (const f of ["report.json", "report.md", "chart.svg", "results.jsonl"]) expect(existsSync(path.join(out, f))).toBe(true);
    const results = readFileSync(path.join(out, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as BfclResult);
    expect(results).toHaveLength(10);
    expect(results.filter((x) => x.mode === "constrained").flatMap((x) => Object.keys(x.invalidByReason))).toEqual([]);
    expect(readFileSync(path.join(out, "chart.svg"), "utf8")).toContain("AST accuracy");
  });

  it("refuses the task suite's flags and unknown categories", async () => {
    const a = await runCli(["bench", "--suite", "bfcl", "--tasks", "3", "--data", FIXTURE]);
    expect([a.code, a.stderr]).toEqual([2, expect.stringContaining("--tasks")]);
    const b = await runCli(["bench", "--suite", "bfcl", "--categories", "simple,parallel", "--data", FIXTURE]);
    expect([b.code, b.stderr]).toEqual([2, expect.stringContaining("live_relevance")]);
    const c = await runCli(["bench", "--limit", "3"]);
    expect([c.code, c.stderr]).toEqual([2, expect.stringContaining("--suite bfcl")]);
  });
});

function scripted(calls: { name: string; args: Record<string, unknown> }[]): () => Promise<GenerateResult> {
  return async () => ({
    content: "", reasoning: null, errors: [], finishReason: "tool_calls", raw: "", tokens: [], mode: "constrained", format: "hermes",
    toolCalls: calls.map((c, i) => ({ id: `c${i}`, name: c.name, arguments: JSON.stringify(c.args), parsedArguments: c.args, format: "hermes", raw: "", start: 0, end: 0 })),
    usage: { promptTokens: 10, completionTokens: 20, forcedTokens: 5 },
    timings: { timeToFirstTokenMs: 1, decodeTokensPerSecond: 100, grammarMs: 0, totalMs: 10 },
    diagnostics: {} as GenerateResult["diagnostics"],
  });
}

describe("a question judged", () => {
  const opts = { mode: "constrained" as const, label: "m", maxTokens: 64, seed: 0, toolChoice: "auto" as const };
  it("scores the right parallel calls in any order and fails a wrong value with BFCL's error type", async () => {
    const [q] = readBfclCategory(FIXTURE, "parallel");
    const right = await runQuestion(q!, scripted([{ name: "weather.get", args: { city: "rome" } }, { name: "weather.get", args: { city: "Paris" } }]), opts);
    expect([right.correct, right.error, right.blocks, right.validBlocks]).toEqual([true, null, 2, 2]);
    const wrong = await runQuestion(q!, scripted([{ name: "weather.get", args: { city: "Rome" } }, { name: "weather.get", args: { city: "Oslo" } }]), opts);
    expect([wrong.correct, wrong.error]).toEqual([false, "cannot_find_match"]);
  });

  it("scores an integer list where BFCL expects floats, and no call under irrelevance", async () => {
    const simple = readBfclCategory(FIXTURE, "simple_python");
    expect((await runQuestion(simple[2]!, scripted([{ name: "stats.mean", args: { values: [1, 2, 3] } }]), opts)).correct).toBe(true);
    const [irr] = readBfclCategory(FIXTURE, "irrelevance");
    expect((await runQuestion(irr!, scripted([]), opts)).correct).toBe(true);
  });
});
