// Owns: `npm run bench:e2e`: what a user waits for, per request and per agent turn (time to first token, prompt
// tokens reused vs evaluated, decode tok/s, wall time), for qtc constrained and free and, where it is built,
// llama-server with the same GGUF and grammar, side by side in one run; then aggregate throughput at 1, 2, 4 and
// 8 concurrent requests against llama-server `-np` N. Prints tables and writes JSON (the source of the tables).

import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname } from "node:path";
import { createRuntime } from "../dist/index.js";
import { llamaServerEngine, qtcEngine, type E2eEngine } from "./lib/e2e-engines.js";
import { renderE2eReport, summarize, type E2eReport } from "./lib/e2e-report.js";
import { agentScenario, parallelScenario, repeatScenario, type ParallelResult, type Row } from "./lib/e2e-scenarios.js";
import { findLlamaProgram, DecodePassTally, makeStandIn } from "./lib/internals.js";
import { readBenchFlags, runBenchScript } from "./lib/script-args.js";

export const E2E_BENCH_DEFAULTS = Object.freeze({
  /** Model spec. Default: "synthetic:0.6b" (the real Qwen3-0.6B dimensions, Q8_0). */
  model: "synthetic:0.6b",
  /** CPU threads, for qtc and llama-server alike. Default: 2. */
  threads: 2,
  /** Requests of the same prompt, per mode. Default: 4. */
  repeats: 4,
  /** Turns of the agent run. Default: 8. */
  turns: 8,
  /** Token budget per request. Default: 96. */
  maxTokens: 96,
  /** Concurrency levels of the throughput scenario ("" skips it). Default: "1,2,4,8". */
  parallel: "1,2,4,8",
  /** Tokens per sequence. Default: 4096. */
  contextSize: 4096,
  /** Default: "bench/results/e2e.json". */
  out: "bench/results/e2e.json",
  /** Scenarios to run, of E2E_SCENARIOS. Default: all. */
  only: "repeat,agent,parallel",
});

/** `repeat` and `agent` run together per engine (and with `deterministic: true`); `parallel` is the N-at-once part. */
export const E2E_SCENARIOS = ["repeat", "agent", "parallel"] as const;
type Scenario = (typeof E2E_SCENARIOS)[number];

interface Args {
  model: string;
  threads: number;
  repeats: number;
  turns: number;
  maxTokens: number;
  parallel: number[];
  contextSize: number;
  out: string;
  llamaServer: boolean;
  /** Also run qtc with `deterministic: true`, to show what it costs. */
  deterministic: boolean;
  only: Set<Scenario>;
}

function readArgs(): Args {
  const d = E2E_BENCH_DEFAULTS;
  const values = readBenchFlags("qtc bench:e2e", {
    model: { type: "string", default: d.model },
    threads: { type: "string", default: String(d.threads) },
    repeats: { type: "string", default: String(d.repeats) },
    turns: { type: "string", default: String(d.turns) },
    "max-tokens": { type: "string", default: String(d.maxTokens) },
    parallel: { type: "string", default: d.parallel },
    "context-size": { type: "string", default: String(d.contextSize) },
    out: { type: "string", default: d.out },
    "no-llama-server": { type: "boolean", default: false },
    "no-deterministic": { type: "boolean", default: false },
    only: { type: "string", default: d.only },
  });
  const whole = (name: string, text: string, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) {
      process.stderr.write(`qtc bench:e2e: --${name} must be a whole number ≥ ${min}, got ${JSON.stringify(text)}\n`);
      process.exit(2);
    }
    return n;
  };
  return {
    model: values.model,
    threads: whole("threads", values.threads, 1),
    repeats: whole("repeats", values.repeats, 2),
    turns: whole("turns", values.turns, 1),
    maxTokens: whole("max-tokens", values["max-tokens"], 32),
    parallel: values.parallel === "" ? [] : values.parallel.split(",").map((x) => whole("parallel", x.trim(), 1)),
    contextSize: whole("context-size", values["context-size"], 1024),
    out: values.out,
    llamaServer: !values["no-llama-server"],
    deterministic: !values["no-deterministic"],
    only: scenariosOf(values.only),
  };
}

function scenariosOf(text: string): Set<Scenario> {
  const names = text.split(",").map((x) => x.trim());
  const unknown = names.filter((x) => !(E2E_SCENARIOS as readonly string[]).includes(x));
  if (unknown.length > 0 || names.length === 0) {
    process.stderr.write(`qtc bench:e2e: --only takes scenarios of ${E2E_SCENARIOS.join(", ")} (comma-separated), got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return new Set(names as Scenario[]);
}

/** A qtc runtime as a bench engine, with what the report says about it. */
interface QtcInfo {
  engine: E2eEngine;
  path: string;
  synthetic: boolean;
  binary: string;
}

async function qtcFor(args: Args, sequences: number, deterministic = false): Promise<QtcInfo> {
  const passes = new DecodePassTally();
  const runtime = await createRuntime({ model: args.model, threads: args.threads, contextSize: args.contextSize, sequences, deterministic, onDecodePass: passes.add, standIns: makeStandIn });
  const name = deterministic ? "qtc deterministic" : "qtc";
  return { engine: qtcEngine(name, runtime, passes), path: runtime.modelInfo.path, synthetic: runtime.modelInfo.synthetic, binary: runtime.settings.binary };
}

/** The same engine, printing each request's figures to stderr as it finishes (a long run shows its progress). */
function logged(engine: E2eEngine): E2eEngine {
  return {
    name: engine.name,
    passes: engine.passes,
    async complete(request) {
      const s = await engine.complete(request);
      const what = `${engine.name} ${request.constrained ? "constrained" : "free"}`;
      process.stderr.write(`  ${what}: prompt ${s.promptTokens} (reused ${s.reused}), TTFT ${s.ttftMs.toFixed(0)} ms, ${s.completionTokens} tokens at ${s.decodeTps.toFixed(1)} tok/s, wall ${s.wallMs.toFixed(0)} ms${s.error ? `, failed: ${s.error}` : ""}\n`);
      return s;
    },
    close: () => engine.close(),
  };
}

async function withEngine<T>(open: () => Promise<E2eEngine>, use: (engine: E2eEngine) => Promise<T>): Promise<T> {
  const engine = logged(await open());
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}

/** The one-request scenarios `--only` asks for, in order, on one engine. */
async function singleScenarios(engine: E2eEngine, args: Args): Promise<Row[]> {
  const rows: Row[] = [];
  if (args.only.has("repeat")) rows.push(...(await repeatScenario(engine, args.repeats, args.maxTokens)));
  if (args.only.has("agent")) rows.push(...(await agentScenario(engine, args.turns, args.maxTokens)));
  return rows;
}

async function main(): Promise<void> {
  const args = readArgs();
  const single = args.only.has("repeat") || args.only.has("agent");
  const levels = args.only.has("parallel") ? args.parallel : [];
  if (!single && levels.length === 0) {
    process.stderr.write("qtc bench:e2e: nothing to run (--only parallel with --parallel \"\")\n");
    process.exit(2);
  }
  const server = args.llamaServer ? findLlamaProgram("llama-server") : undefined;
  const loadBefore = loadavg();
  const rows: Row[] = [];
  const parallel: ParallelResult[] = [];
  const note = (line: string) => process.stderr.write(`${line}\n`);
  let qtc: QtcInfo | undefined;

  if (single) {
    const first = await qtcFor(args, 1);
    qtc = first;
    note("qtc: one request at a time");
    await withEngine(async () => first.engine, async (engine) => void rows.push(...(await singleScenarios(engine, args))));
    if (args.deterministic) {
      // What the batch-aligned cut costs: the same scenarios with `deterministic: true`.
      note("qtc deterministic: the same scenarios");
      await withEngine(async () => (await qtcFor(args, 1, true)).engine, async (engine) => void rows.push(...(await singleScenarios(engine, args))));
    }
  }
  const serverOptions = (n: number, contextSize = args.contextSize) => ({ program: server!, model: qtc!.path, threads: args.threads, parallel: n, contextSize });
  if (server && single) {
    note("llama-server: one request at a time");
    await withEngine(() => llamaServerEngine("llama-server", serverOptions(1)), async (engine) => void rows.push(...(await singleScenarios(engine, args))));
  } else if (!server) note("llama-server not built (npm run llama:build) or --no-llama-server: qtc only");

  for (const n of levels) {
    note(`${n} concurrent requests`);
    const level = await qtcFor({ ...args, contextSize: 2048 }, n);
    qtc ??= level;
    parallel.push(await withEngine(async () => level.engine, (e) => parallelScenario(e, n, args.maxTokens)));
    if (server) parallel.push(await withEngine(() => llamaServerEngine("llama-server", serverOptions(n, 2048)), (e) => parallelScenario(e, n, args.maxTokens)));
  }
  if (!qtc) throw new Error("no qtc runtime ran");

  const report: E2eReport = {
    config: {
      model: args.model,
      synthetic: qtc.synthetic,
      binary: qtc.binary,
      threads: args.threads,
      scenarios: [...args.only],
      repeats: args.repeats,
      turns: args.turns,
      maxTokens: args.maxTokens,
      llamaServer: server ?? null,
      node: process.version,
      date: new Date().toISOString(),
      loadAverage: { before: loadBefore, after: loadavg() },
    },
    summary: summarize(rows, parallel),
    parallel: parallel.map(({ rows: _rows, ...p }) => p),
    rows,
  };
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, JSON.stringify(report, null, 2) + "\n");
  console.log(renderE2eReport(report));
  console.log(`JSON: ${args.out}`);
}

await runBenchScript("qtc bench:e2e", main);
