// Owns: the JSON shape of `npm run bench:e2e` and the tables rendered from it (the done-when figures first, then
// every request and turn).

import type { ParallelResult, Row } from "./e2e-scenarios.js";

export interface EngineSummary {
  engine: string;
  /** Repeat scenario: first (cold) and median later (warm) time to first token, and their ratio. */
  ttftColdMs: number;
  ttftWarmMs: number;
  ttftDrop: number;
  /** Median prompt tokens evaluated per warm request, and the prompt's length. */
  warmEvaluated: number;
  promptTokens: number;
  decodeTpsConstrained: number;
  decodeTpsFree: number;
  /** Warm requests: free wall time over constrained wall time for the same number of tokens (median). */
  endToEndConstrainedOverFree: number;
  /** Agent run: wall time of all turns, completion tokens, and prompt tokens evaluated vs new per turn. */
  agentWallMs: number;
  agentCompletionTokens: number;
  agentTokensPerSecond: number;
  agentEvaluatedPerTurn: number[];
  agentNewPromptTokensPerTurn: number[];
  agentValidCalls: number;
  agentRejected: number;
  /** Requests the engine failed (left out of the medians above). */
  failed: number;
}

export interface E2eReport {
  config: {
    model: string;
    synthetic: boolean;
    /** qtc's llama.cpp binary: "native" (built here) or "prebuilt". */
    binary: string;
    threads: number;
    /** The scenarios run (`--only`). */
    scenarios: string[];
    repeats: number;
    turns: number;
    maxTokens: number;
    llamaServer: string | null;
    node: string;
    date: string;
    loadAverage: { before: number[]; after: number[] };
  };
  summary: { engines: EngineSummary[]; parallel: ParallelSummary[] };
  parallel: Omit<ParallelResult, "rows">[];
  rows: Row[];
}

export interface ParallelSummary {
  concurrency: number;
  qtcTps: number;
  /** qtc's aggregate rate over its rate at concurrency 1. */
  qtcScaling: number;
  serverTps: number | null;
  serverScaling: number | null;
  qtcOverServer: number | null;
  /** qtc's model passes in the reported round, and the tokens and sequences each carried on average. */
  qtcPasses: number | null;
  qtcTokensPerPass: number | null;
  qtcSequencesPerPass: number | null;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : NaN;
};

function engineSummary(engine: string, rows: Row[]): EngineSummary {
  const repeat = (mode: Row["mode"]) => rows.filter((r) => r.scenario === "repeat" && r.mode === mode && !r.error);
  const constrained = repeat("constrained");
  const free = repeat("free");
  const warm = constrained.filter((r) => r.index > 0);
  const agent = rows.filter((r) => r.scenario === "agent");
  const agentWallMs = agent.reduce((n, r) => n + r.wallMs, 0);
  const agentCompletionTokens = agent.reduce((n, r) => n + r.completionTokens, 0);
  const ttftColdMs = constrained[0]?.ttftMs ?? NaN;
  const ttftWarmMs = median(warm.map((r) => r.ttftMs));
  return {
    engine,
    ttftColdMs,
    ttftWarmMs,
    ttftDrop: ttftColdMs / ttftWarmMs,
    warmEvaluated: median(warm.map((r) => r.evaluated)),
    promptTokens: constrained[0]?.promptTokens ?? 0,
    decodeTpsConstrained: median(constrained.map((r) => r.decodeTps)),
    decodeTpsFree: median(free.map((r) => r.decodeTps)),
    endToEndConstrainedOverFree: median(
      warm.flatMap((c) => {
        const f = free.find((x) => x.index === c.index);
        return f ? [c.completionTokens / c.wallMs / (f.completionTokens / f.wallMs)] : [];
      }),
    ),
    agentWallMs,
    agentCompletionTokens,
    agentTokensPerSecond: (agentCompletionTokens * 1000) / agentWallMs,
    agentEvaluatedPerTurn: agent.map((r) => r.evaluated),
    agentNewPromptTokensPerTurn: agent.map((r, i) => r.promptTokens - (i === 0 ? 0 : agent[i - 1]!.promptTokens)),
    agentValidCalls: agent.reduce((n, r) => n + r.calls.length, 0),
    agentRejected: agent.reduce((n, r) => n + r.rejected, 0),
    failed: rows.filter((r) => r.error).length,
  };
}

export function summarize(rows: Row[], parallel: ParallelResult[]): E2eReport["summary"] {
  const engines = [...new Set(rows.map((r) => r.engine))].map((e) => engineSummary(e, rows.filter((r) => r.engine === e)));
  const at = (engine: string, n: number) => parallel.find((p) => p.engine === engine && p.concurrency === n);
  const one = at("qtc", 1)?.aggregateTps ?? NaN;
  const serverOne = at("llama-server", 1)?.aggregateTps ?? NaN;
  const levels = [...new Set(parallel.map((p) => p.concurrency))];
  return {
    engines,
    parallel: levels.map((n) => {
      const qtcTps = at("qtc", n)?.aggregateTps ?? NaN;
      const serverTps = at("llama-server", n)?.aggregateTps ?? null;
      const serverScaling = serverTps === null ? null : serverTps / serverOne;
      const passes = at("qtc", n)?.passes;
      return {
        concurrency: n,
        qtcTps,
        qtcScaling: qtcTps / one,
        serverTps,
        serverScaling,
        qtcOverServer: serverTps === null ? null : qtcTps / serverTps,
        qtcPasses: passes?.passes ?? null,
        qtcTokensPerPass: passes ? passes.tokensPerPass : null,
        qtcSequencesPerPass: passes && passes.passes > 0 ? passes.bySequences.reduce((sum, count, seqs) => sum + count * seqs, 0) / passes.passes : null,
      };
    }),
  };
}

const f = (x: number | null, digits = 1) => (x === null || Number.isNaN(x) ? "—" : x.toFixed(digits));

function table(header: string[], body: (string | number)[][]): string {
  const cells = [header, ...body.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n");
}

export function renderE2eReport(report: E2eReport): string {
  const c = report.config;
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(" ");
  const out = [
    `model ${c.model}${c.synthetic ? " (synthetic: random weights, real Qwen3 shape)" : ""}, qtc on the ${c.binary} llama.cpp binary, ${c.threads} threads, ${c.maxTokens} tokens a request, node ${c.node}`,
    `load average before ${load(c.loadAverage.before)}, after ${load(c.loadAverage.after)}`,
  ];
  if (report.summary.engines.length > 0) {
    out.push(
      "",
      table(
        ["engine", "failed", "prompt", "TTFT cold ms", "TTFT warm ms", "drop", "warm evaluated", "decode c tok/s", "decode free tok/s", "e2e c/free", "agent wall s", "agent tok/s", "agent calls"],
        report.summary.engines.map((e) => [
          e.engine,
          e.failed,
          e.promptTokens,
          f(e.ttftColdMs, 0),
          f(e.ttftWarmMs, 0),
          `${f(e.ttftDrop)}×`,
          e.warmEvaluated,
          f(e.decodeTpsConstrained),
          f(e.decodeTpsFree),
          `${f(e.endToEndConstrainedOverFree, 2)}×`,
          f(e.agentWallMs / 1000, 2),
          f(e.agentTokensPerSecond),
          `${e.agentValidCalls} (${e.agentRejected} rejected)`,
        ]),
      ),
      "",
      ...report.summary.engines.map((e) => `${e.engine} agent turns: evaluated ${e.agentEvaluatedPerTurn.join(", ")} of new ${e.agentNewPromptTokensPerTurn.join(", ")} prompt tokens`),
    );
  }
  if (report.summary.parallel.length > 0) {
    out.push(
      "",
      table(
        ["concurrent", "qtc tok/s", "qtc ×1", "llama-server tok/s", "llama-server ×1", "qtc / llama-server", "qtc passes", "tokens/pass", "sequences/pass"],
        report.summary.parallel.map((p) => [
          p.concurrency,
          f(p.qtcTps),
          `${f(p.qtcScaling, 2)}×`,
          f(p.serverTps),
          p.serverScaling === null ? "—" : `${f(p.serverScaling, 2)}×`,
          p.qtcOverServer === null ? "—" : `${f(p.qtcOverServer, 2)}×`,
          p.qtcPasses ?? "—",
          f(p.qtcTokensPerPass),
          f(p.qtcSequencesPerPass, 2),
        ]),
      ),
    );
  }
  out.push(
    "",
    table(
      ["engine", "scenario", "mode", "#", "prompt", "reused", "evaluated", "completion", "TTFT ms", "decode tok/s", "wall ms", "calls", "failed"],
      report.rows
        .filter((r) => r.scenario !== "parallel")
        .map((r) => [r.engine, r.scenario, r.mode, r.index, r.promptTokens, r.reused, r.evaluated, r.completionTokens, f(r.ttftMs, 0), f(r.decodeTps), f(r.wallMs, 0), r.calls.length, r.error ? "yes" : ""]),
    ),
  );
  return out.join("\n");
}
