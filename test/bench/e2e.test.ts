// bench:e2e without a model: the scenarios send what they say (the same prompt repeated, free runs over the
// constrained token counts, an agent history that grows with each turn's calls and results, N requests at
// once), and the summary computes the done-when figures from the rows.

import { describe, expect, test } from "vitest";
import type { E2eEngine, E2eRequest, E2eSample } from "../../bench/lib/e2e-engines.js";
import { renderE2eReport, summarize, type E2eReport } from "../../bench/lib/e2e-report.js";
import { agentScenario, parallelScenario, repeatScenario, type Row } from "../../bench/lib/e2e-scenarios.js";
import type { ToolCall } from "../../src/parse/types.js";
import { DecodePassTally } from "../../src/runtime/decode-passes.js";

const call = (n: number): ToolCall => ({
  id: `call-${n}`,
  name: "read_file",
  arguments: '{"path":"src/parse.js"}',
  parsedArguments: { path: "src/parse.js" },
  format: "hermes",
  raw: "",
  start: 0,
  end: 0,
});

/** An engine that answers every request with `tokens` tokens and one call, and remembers what it was sent. */
function fakeEngine(tokens = (r: E2eRequest) => (r.constrained ? 30 : r.maxTokens)): E2eEngine & { sent: E2eRequest[]; concurrent: number; maxConcurrent: number } {
  let calls = 0;
  const engine = {
    name: "fake",
    sent: [] as E2eRequest[],
    concurrent: 0,
    maxConcurrent: 0,
    async complete(r: E2eRequest): Promise<E2eSample> {
      engine.sent.push(r);
      engine.concurrent++;
      engine.maxConcurrent = Math.max(engine.maxConcurrent, engine.concurrent);
      await new Promise((resolve) => setTimeout(resolve, 5));
      engine.concurrent--;
      const completionTokens = tokens(r);
      return { ttftMs: 10, promptTokens: 100, reused: 0, evaluated: 100, completionTokens, decodeTps: 20, wallMs: 50, calls: r.constrained ? [call(calls++)] : [], rejected: 0 };
    },
    close: async () => undefined,
  };
  return engine;
}

describe("bench:e2e scenarios", () => {
  test("repeat: the same prompt each time; free runs get as many tokens as the constrained run they pair with", async () => {
    let n = 0;
    const engine = fakeEngine((r) => (r.constrained ? 20 + n++ : r.maxTokens));
    const rows = await repeatScenario(engine, 3, 96);
    const constrained = rows.filter((r) => r.mode === "constrained");
    const free = rows.filter((r) => r.mode === "free");
    expect(constrained.map((r) => r.completionTokens)).toEqual([20, 21, 22]);
    expect(free.map((r) => r.completionTokens)).toEqual([20, 21, 22]);
    const prompts = new Set(engine.sent.map((r) => JSON.stringify(r.messages)));
    expect(prompts.size).toBe(1);
    expect(engine.sent.filter((r) => r.constrained)).toHaveLength(3);
  });

  test("agent: each turn sends the whole history, grown by the last turn's calls and their results", async () => {
    const engine = fakeEngine();
    const rows = await agentScenario(engine, 4, 96);
    expect(rows.map((r) => r.index)).toEqual([0, 1, 2, 3]);
    const lengths = engine.sent.map((r) => r.messages.length);
    expect(lengths).toEqual([2, 4, 6, 8]);
    for (let i = 1; i < engine.sent.length; i++) {
      expect(engine.sent[i]!.messages.slice(0, lengths[i - 1])).toEqual(engine.sent[i - 1]!.messages);
      const [assistant, tool] = engine.sent[i]!.messages.slice(-2);
      expect(assistant).toMatchObject({ role: "assistant", tool_calls: [{ id: `call-${i - 1}` }] });
      expect(tool).toMatchObject({ role: "tool", tool_call_id: `call-${i - 1}`, name: "read_file" });
    }
  });

  test("parallel: N requests are in flight at once, and the rate is their tokens over the round's wall time", async () => {
    const engine = fakeEngine();
    const result = await parallelScenario(engine, 4, 96);
    expect(engine.maxConcurrent).toBe(4);
    expect(result.completionTokens).toBe(4 * 30);
    expect(result.aggregateTps).toBeCloseTo((result.completionTokens * 1000) / result.wallMs, 6);
    expect(new Set(engine.sent.slice(-4).map((r) => JSON.stringify(r.messages))).size).toBe(4);
  });

  test("parallel: an engine that counts model passes reports those of the second round only", async () => {
    const passes = new DecodePassTally();
    const base = fakeEngine();
    let round = 0;
    const engine: E2eEngine = {
      ...base,
      passes,
      async complete(r) {
        // Round one runs 3 passes per request, round two 1 (a stand-in for warm, shared passes).
        const each = round++ < 4 ? 3 : 1;
        for (let i = 0; i < each; i++) passes.add({ sequences: 4, tokens: 4 });
        return base.complete(r);
      },
    };
    const result = await parallelScenario(engine, 4, 96);
    expect(result.passes).toEqual({ passes: 4, tokens: 16, tokensPerPass: 4, bySequences: [0, 0, 0, 0, 4] });
  });
});

const row = (over: Partial<Row>): Row => ({
  engine: "qtc",
  scenario: "repeat",
  mode: "constrained",
  index: 0,
  ttftMs: 100,
  promptTokens: 400,
  reused: 0,
  evaluated: 400,
  completionTokens: 40,
  decodeTps: 20,
  wallMs: 2000,
  calls: [],
  rejected: 0,
  ...over,
});

describe("bench:e2e summary", () => {
  test("TTFT drop, warm evaluated tokens, constrained vs free end to end, agent totals, parallel scaling", () => {
    const rows: Row[] = [
      row({ index: 0, ttftMs: 3000, wallMs: 4000 }),
      row({ index: 1, ttftMs: 30, reused: 399, evaluated: 1, wallMs: 1000 }),
      row({ index: 2, ttftMs: 50, reused: 399, evaluated: 1, wallMs: 1000 }),
      row({ mode: "free", index: 0, wallMs: 3000 }),
      row({ mode: "free", index: 1, wallMs: 1500 }),
      row({ mode: "free", index: 2, wallMs: 2000, error: "HTTP 500" }),
      row({ scenario: "agent", index: 0, promptTokens: 400, evaluated: 1, wallMs: 1000 }),
      row({ scenario: "agent", index: 1, promptTokens: 460, evaluated: 62, wallMs: 1500 }),
    ];
    const passes = (n: number) => ({ passes: 10, tokens: 10 * n, tokensPerPass: n, bySequences: n === 1 ? [0, 10] : [0, 2, 0, 0, 8] });
    const parallel = [1, 4].map((n) => ({ engine: "qtc", concurrency: n, completionTokens: 40 * n, wallMs: 2000, aggregateTps: 20 * n, passes: passes(n), rows: [] }));
    const summary = summarize(rows, parallel);
    const [qtc] = summary.engines;
    expect(qtc).toMatchObject({ ttftColdMs: 3000, ttftWarmMs: 40, ttftDrop: 75, warmEvaluated: 1, promptTokens: 400, failed: 1 });
    // Only the pair without a failure counts: free 1500 ms over constrained 1000 ms for the same 40 tokens.
    expect(qtc!.endToEndConstrainedOverFree).toBeCloseTo(1.5, 6);
    expect(qtc).toMatchObject({ agentWallMs: 2500, agentCompletionTokens: 80, agentEvaluatedPerTurn: [1, 62], agentNewPromptTokensPerTurn: [400, 60] });
    expect(summary.parallel).toEqual([
      { concurrency: 1, qtcTps: 20, qtcScaling: 1, serverTps: null, serverScaling: null, qtcOverServer: null, qtcPasses: 10, qtcTokensPerPass: 1, qtcSequencesPerPass: 1 },
      // 2 passes carried 1 sequence and 8 carried all 4: (2 + 32) / 10.
      { concurrency: 4, qtcTps: 80, qtcScaling: 4, serverTps: null, serverScaling: null, qtcOverServer: null, qtcPasses: 10, qtcTokensPerPass: 4, qtcSequencesPerPass: 3.4 },
    ]);
    const report: E2eReport = {
      config: { model: "synthetic:0.6b", synthetic: true, binary: "prebuilt", threads: 2, scenarios: ["repeat", "agent", "parallel"], repeats: 3, turns: 2, maxTokens: 96, llamaServer: null, node: "v20", date: "", loadAverage: { before: [1, 1, 1], after: [1, 1, 1] } },
      summary,
      parallel: parallel.map(({ rows: _rows, ...p }) => p),
      rows,
    };
    const text = renderE2eReport(report);
    expect(text).toContain("synthetic: random weights");
    expect(text).toContain("75.0×");
  });
});
