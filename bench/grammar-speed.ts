// Owns: `npm run bench:grammar`: grammar compile time (the 5 harness tools; 200 generated tools) and the
// per-token decode cost of each harness grammar on the synthetic tiny model, next to no grammar, measured in the
// same run through node-llama-cpp's own sampler; beside them, the xgrammar dialect's compile and mask cost in
// xgrammar itself (./lib/grammar-xgrammar.ts), and the tokenCost rows (every engine × suite × vocabulary,
// ./lib/grammar-token-cost-suites.ts). Prints a table and writes JSON (default bench/results/grammar-speed.json;
// `--token-cost` alone: bench/results/grammar-token-cost.json).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import type { LlamaModel, Token } from "node-llama-cpp";
import { FORMAT_IDS, type FormatId, ensureSyntheticModel, normalizeTools, type ToolDefinition } from "../dist/index.js";
import { tokenCostTable, type EngineName, type TokenCostRow } from "./lib/grammar-token-cost.js";
import { ALL_ENGINES, COST_VOCABULARIES, costLists, runTokenCostRows, warmUpLists, type CostVocabularyName, type TokenCostPlan } from "./lib/grammar-token-cost-suites.js";
import { dataFolder } from "./lib/maskbench-data.js";
import { runXgrammarBench, xgrammarTable, type XgrammarRow } from "./lib/grammar-xgrammar.js";
import { clientToolLists, generatedTools } from "./lib/tool-lists.js";
import { QWEN3_VOCAB_SIZE, resolveFormat, mismatchedTag, compileToolGrammar, type ToolGrammarOptions, grammarsDir, createLlama, loadModel, XgrammarSession, readVocabulary } from "./lib/internals.js";
import { runBenchScript } from "./lib/script-args.js";

export const GRAMMAR_BENCH_DEFAULTS = Object.freeze({
  /** Compiles timed per case (after 30 warm-up compiles); the median is reported. */
  compileRuns: 100,
  /** Seeded generations per grammar for the decode cost. */
  decodeRuns: 4,
  /** Token budget of each generation. */
  maxTokens: 256,
  /** CPU threads for decoding. */
  threads: 1,
  out: "bench/results/grammar-speed.json",
  /** Targets from issue 4, in ms. */
  targetHarnessMs: 2,
  targetManyMs: 50,
  /** Issue 31: a real client's tool list, warm. */
  targetClientMs: 200,
});

const PROMPT = "<|im_start|>user\nFind the failing test and fix it.<|im_end|>\n<|im_start|>assistant\n";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median compile time (ms) of `tools` with `options`, after warm-up; the first (cold) compile too. */
function timeCompile(tools: ToolDefinition[], options: ToolGrammarOptions, runs: number): { coldMs: number; medianMs: number; rules: number; kb: number } {
  let t0 = performance.now();
  const first = compileToolGrammar(tools, options);
  const coldMs = performance.now() - t0;
  if (!first.ok) throw new Error(`${first.error.code}: ${first.error.message}`);
  for (let i = 0; i < 30; i++) compileToolGrammar(tools, options);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    t0 = performance.now();
    compileToolGrammar(tools, options);
    times.push(performance.now() - t0);
  }
  return { coldMs, medianMs: median(times), rules: first.value.stats.rules, kb: first.value.stats.bytes / 1024 };
}

interface DecodeRow {
  grammar: string;
  tokens: number;
  msPerToken: number;
  ratio: number;
  parseMs?: number;
}

/** ms per generated token under a grammar (or none), through node-llama-cpp's sampler, over seeded runs. */
async function decodeCost(model: LlamaModel, gbnf: string | undefined, runs: number, maxTokens: number, threads: number): Promise<{ tokens: number; ms: number; parseMs?: number }> {
  const context = await model.createContext({ contextSize: 1024, threads, sequences: 1 });
  const sequence = context.getSequence();
  const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
  let parseMs: number | undefined;
  const grammar = gbnf === undefined ? undefined : await (async () => {
    const t0 = performance.now();
    const g = await model.llama.createGrammar({ grammar: gbnf });
    new LlamaGrammarEvaluationState({ model, grammar: g });
    parseMs = performance.now() - t0;
    return g;
  })();
  let tokens = 0;
  let ms = 0;
  try {
    for (let i = 0; i < runs; i++) {
      await sequence.clearHistory();
      const state = grammar ? new LlamaGrammarEvaluationState({ model, grammar }) : undefined;
      const prompt = model.tokenize(PROMPT, true) as Token[];
      const t0 = performance.now();
      let n = 0;
      for await (const _token of sequence.evaluate(prompt, { temperature: 1, seed: 100 + i, grammarEvaluationState: state })) {
        if (++n >= maxTokens) break;
      }
      ms += performance.now() - t0;
      tokens += n;
    }
  } finally {
    await context.dispose();
  }
  return { tokens, ms, parseMs };
}

const DEFAULT_PLAN: TokenCostPlan = { engines: ALL_ENGINES, vocabularies: COST_VOCABULARIES, profile: false, warmUp: warmUpLists(clientToolLists(), generatedTools) };

export async function runGrammarBench(opts: Partial<typeof GRAMMAR_BENCH_DEFAULTS> = {}, only?: "tokenCost", plan: TokenCostPlan = DEFAULT_PLAN): Promise<Record<string, unknown>> {
  const o = { ...GRAMMAR_BENCH_DEFAULTS, ...opts };
  const harness = normalizeTools(JSON.parse(readFileSync(join(grammarsDir(), "harness-tools.json"), "utf8")));
  if (only === "tokenCost") {
    const t0 = performance.now();
    const run = await runTokenCostRows(costLists(harness, clientToolLists(), generatedTools), plan);
    return {
      model: "synthetic tiny model (random weights; Q8_0), one per vocabulary",
      vocabularies: run.vocabularies,
      maskbench: run.maskbench,
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
      node: process.version,
      wallS: (performance.now() - t0) / 1000,
      tokenCost: run.rows,
    };
  }
  const many = generatedTools(200);
  const compile: Record<string, unknown>[] = [];
  for (const format of FORMAT_IDS) {
    for (const [label, tools] of [
      ["5 harness tools", harness],
      ["200 generated tools", many],
    ] as const) {
      const r = timeCompile(tools, { format, toolChoice: "auto", maxTokens: 512 }, o.compileRuns);
      compile.push({ tools: label, format, toolChoice: "auto", maxTokens: 512, ...r, targetMs: label.startsWith("5") ? o.targetHarnessMs : o.targetManyMs });
    }
    // Real agent clients' tool lists (test/fixtures/clients, captured from their packages; issue 31's < 200 ms).
    for (const [label, tools] of clientToolLists()) {
      const r = timeCompile(tools, { format, toolChoice: "auto", maxTokens: 512 }, Math.min(o.compileRuns, 20));
      compile.push({ tools: label, format, toolChoice: "auto", maxTokens: 512, ...r, targetMs: o.targetClientMs });
    }
  }
  // The tokenCost rows load their own models (one per vocabulary), before this run's decode model.
  const tokenCost = (await runTokenCostRows(costLists(harness, clientToolLists(), generatedTools), plan)).rows;
  const llama = await createLlama({ gpu: "cpu" });
  const model = await loadModel(llama, { path: await ensureSyntheticModel("tiny") });
  const decode: DecodeRow[] = [];
  try {
    const base = await decodeCost(model, undefined, o.decodeRuns, o.maxTokens, o.threads);
    const baseMs = base.ms / base.tokens;
    decode.push({ grammar: "none", tokens: base.tokens, msPerToken: baseMs, ratio: 1 });
    // Decode rows only for formats whose forced tags this model spells (the runtime's own check): Qwen3.5's tag ids
    // are tokens the Qwen3 tiny stand-in does not have.
    const spell = (token: number) => model.detokenize([token as Token], true);
    const modelFormats = (FORMAT_IDS as FormatId[]).filter((f) => mismatchedTag(resolveFormat(f), spell, QWEN3_VOCAB_SIZE) === undefined);
    for (const format of modelFormats) {
      for (const toolChoice of ["auto", "required"] as const) {
        const g = compileToolGrammar(harness, { format, toolChoice, maxTokens: o.maxTokens });
        if (!g.ok) throw new Error(g.error.message);
        const r = await decodeCost(model, g.value.gbnf, o.decodeRuns, o.maxTokens, o.threads);
        const msPerToken = r.ms / r.tokens;
        decode.push({ grammar: `harness ${format} ${toolChoice}`, tokens: r.tokens, msPerToken, ratio: msPerToken / baseMs, parseMs: r.parseMs });
      }
    }
  } finally {
    await model.dispose();
    await llama.dispose();
  }
  const xgrammar = await runXgrammarBench(harness);
  return {
    model: "synthetic tiny Qwen3 (random weights; Q8_0)",
    threads: o.threads,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    node: process.version,
    nodeLlamaCpp: "3.21.1",
    compile,
    decode,
    xgrammar,
    tokenCost,
  };
}

function printTable(result: Record<string, unknown>): void {
  const out: string[] = [];
  if (!result.compile) {
    const skipped = (result.maskbench as { skipped?: string }).skipped;
    process.stdout.write(tokenCostTable(result.tokenCost as TokenCostRow[]).join("\n") + (skipped ? `\n  maskbench suite skipped: ${skipped}` : "") + "\n");
    return;
  }
  out.push(`model: ${String(result.model)}, ${String(result.cores)} cores (${String(result.cpu)}), threads ${String(result.threads)}`);
  out.push("", "compile (ms)                       format      cold   median  target  rules   KiB");
  for (const c of result.compile as Record<string, number | string>[]) {
    out.push(
      `  ${String(c.tools).padEnd(32)} ${String(c.format).padEnd(10)} ${(c.coldMs as number).toFixed(2).padStart(6)} ${(c.medianMs as number).toFixed(2).padStart(7)}  ≤ ${String(c.targetMs).padStart(3)}  ${String(c.rules).padStart(5)} ${(c.kb as number).toFixed(0).padStart(5)}`,
    );
  }
  out.push("", "decode (tiny model)                tokens  ms/token  × none  grammar parse ms");
  for (const d of result.decode as DecodeRow[]) {
    out.push(`  ${d.grammar.padEnd(32)} ${String(d.tokens).padStart(6)} ${d.msPerToken.toFixed(2).padStart(9)} ${d.ratio.toFixed(2).padStart(7)}  ${d.parseMs === undefined ? "" : d.parseMs.toFixed(1).padStart(8)}`);
  }
  out.push(...xgrammarTable(result.xgrammar as { version: string; rows: XgrammarRow[] }));
  out.push(...tokenCostTable(result.tokenCost as TokenCostRow[]));
  process.stdout.write(out.join("\n") + "\n");
}

async function main(): Promise<void> {
  // `--token-cost`: only the tokenCost rows, written beside the full results (bench/results/grammar-token-cost.json).
  // `--engine NAME` (repeatable, with --token-cost): only those engines' rows; `--profile`: qtc's slow tokens by cause;
  // `--maskbench DIR`: the MaskBench suite too, a sample of `--sample N` schemas of MaskBench's data folder DIR.
  // `--list TEXT` (repeatable): only the tool lists whose label holds TEXT; `--vocabulary NAME`: only that vocabulary.
  // `--no-warm-up`: the engines walk no lists before the rows (their code compiles during the first rows).
  const argv = process.argv;
  const only = argv.includes("--token-cost") ? "tokenCost" : undefined;
  const valueOf = (flag: string) => argv[argv.indexOf(flag) + 1];
  const engines = argv.flatMap((a, i) => (a === "--engine" ? [argv[i + 1] as EngineName] : []));
  const bad = engines.find((e) => !ALL_ENGINES.includes(e));
  if (bad !== undefined) throw new Error(`unknown engine ${String(bad)} (one of ${ALL_ENGINES.join(", ")})`);
  let maskbenchDir: string | undefined;
  if (argv.includes("--maskbench")) {
    maskbenchDir = dataFolder(valueOf("--maskbench") ?? "");
    if (!maskbenchDir) throw new Error(`--maskbench ${String(valueOf("--maskbench"))}: no MaskBench schema files there (*.json, or maskbench/data/*.json)`);
  }
  const sample = argv.includes("--sample") ? Number(valueOf("--sample")) : undefined;
  const lists = argv.flatMap((a, i) => (a === "--list" ? [argv[i + 1] ?? ""] : []));
  const vocabularies = argv.flatMap((a, i) => (a === "--vocabulary" ? [argv[i + 1] as CostVocabularyName] : []));
  const unknown = vocabularies.find((v) => !COST_VOCABULARIES.includes(v));
  if (unknown !== undefined) throw new Error(`unknown vocabulary ${String(unknown)} (one of ${COST_VOCABULARIES.join(", ")})`);
  const plan: TokenCostPlan = {
    ...DEFAULT_PLAN,
    engines: engines.length > 0 ? engines : ALL_ENGINES,
    ...(vocabularies.length > 0 ? { vocabularies } : {}),
    profile: argv.includes("--profile"),
    maskbenchDir,
    maskbenchSample: sample,
    ...(lists.length > 0 ? { lists } : {}),
    ...(argv.includes("--no-warm-up") ? { warmUp: [] } : {}),
  };
  const result = await runGrammarBench({}, only, plan);
  printTable(result);
  // A run of some rows is written beside the full one, never over it.
  const some = [...new Set(engines), ...(lists.length > 0 || vocabularies.length > 0 ? ["some-rows"] : []), ...(argv.includes("--no-warm-up") ? ["no-warm-up"] : [])];
  const part = some.length > 0 ? `grammar-token-cost-${some.join("-")}` : "grammar-token-cost";
  const out = only ? GRAMMAR_BENCH_DEFAULTS.out.replace("grammar-speed", part) : GRAMMAR_BENCH_DEFAULTS.out;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
  process.stdout.write(`\nwrote ${out}\n`);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void runBenchScript("qtc bench:grammar", main);
}
