// Owns: bench rows and configs for the chart tests (chart.test.ts, chart-picture.test.ts).

import type { BenchConfig, BenchRow } from "../../src/bench/types.js";

export const row = (over: Partial<BenchRow>): BenchRow => ({
  model: "m",
  synthetic: false,
  mode: "unconstrained",
  lora: null,
  runs: 4,
  runsWithCalls: 2,
  callRate: 0.5,
  blocks: 4,
  validBlocks: 3,
  validityRate: 0.75,
  invalidByReason: { truncated: 1 },
  tasksPassed: 1,
  taskSuccessRate: 0.25,
  runsErrored: 0,
  completionTokens: 100,
  forcedTokens: 0,
  decodeTokensPerSecond: 50,
  speedRatioVsUnconstrained: 1,
  ...over,
});

export const config = (synthetic: boolean): BenchConfig => ({
  models: [{ spec: "m", lora: null }],
  modes: ["unconstrained", "constrained"],
  tasks: ["a", "b"],
  tasksDir: "/t",
  seeds: [0],
  maxTurns: 8,
  maxTokens: 512,
  toolChoice: "auto",
  thinking: false,
  modelInfo: [{ spec: "m", lora: null, label: "m", name: "m", synthetic, source: "file" }],
  synthetic,
  reference: null,
  threads: 2,
  contextSize: 4096,
  gpu: "auto",
  versions: { qtc: "0.1.0", nodeLlamaCpp: "3.21.1", node: "v20.0.0" },
  platform: "linux x64",
  cpu: "cpu × 2",
  date: "2026-01-01T00:00:00.000Z",
  runsPlanned: 4,
  runsDone: 4,
  partial: false,
  wallMs: 1000,
  notes: [],
});

