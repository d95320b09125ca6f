// Owns: `qtc bench --suite bfcl`: each BFCL question as one turn (its function docs as the tools, BFCL's types
// read through qtc's type aliases), per model × mode, judged by the AST checker, and the rows per category
// (accuracy, call rate, validity, tok/s) written as report.json, report.md, chart.svg and results.jsonl.

import { mkdir, writeFile, appendFile } from "node:fs/promises";
import path from "node:path";
import { QtcException, type CallErrorCode } from "../errors.js";
import type { GpuChoice } from "../model/load.js";
import type { GenerateResult } from "../runtime/types.js";
import type { ToolInput } from "../tools/types.js";
import { checkBfcl, checkerKindOf, type BfclError } from "./bfcl-checker.js";
import { BFCL_COMMIT, BFCL_DEFAULT_CATEGORIES, ensureBfclData, readBfclCategory, type BfclCategory, type BfclDataOptions, type BfclQuestion } from "./bfcl-data.js";
import { renderBfclChartSvg, renderBfclMarkdown } from "./bfcl-report.js";
import { BENCH_DEFAULTS } from "./defaults.js";
import { benchEnvironment, type BenchEnvironment } from "./environment.js";
import { decodeRate, mergeCounts, ratio } from "./metrics.js";
import { openBenchModel, type BenchModelOpener } from "./models.js";
import { defaultToolChoice, withLabels } from "./plan.js";
import type { BenchModelInfo, BenchModelSpec } from "./types.js";

import type { BfclConfig, BfclMode, BfclReport, BfclResult, BfclRow } from "./bfcl-rows.js";

export type { BfclConfig, BfclMode, BfclReport, BfclResult, BfclRow } from "./bfcl-rows.js";

export const BFCL_BENCH_DEFAULTS = Object.freeze({
  /** Default: BFCL_DEFAULT_CATEGORIES (simple_python, multiple, parallel, parallel_multiple, irrelevance). */
  categories: BFCL_DEFAULT_CATEGORIES,
  /** Questions per category (the first N of its file). Default: all of them. */
  limit: Infinity,
  /** Token budget of a question's one turn. Default: 512 (the bench's). */
  maxTokens: BENCH_DEFAULTS.maxTokens,
  /** Sampling seed of every question. Default: 0. */
  seed: 0,
  /** Output folder. Default: `bench/results/bfcl-<timestamp>/`. */
  resultsDir: BENCH_DEFAULTS.resultsDir,
});

export interface BfclBenchOptions extends Omit<BfclDataOptions, "signal"> {
  /** Default: [BENCH_DEFAULTS.model]. */
  models?: BenchModelSpec[];
  /** Default: ["unconstrained"]. */
  modes?: BfclMode[];
  /** Default: BFCL_BENCH_DEFAULTS.categories. */
  categories?: readonly BfclCategory[];
  /** Default: BFCL_BENCH_DEFAULTS.limit. */
  limit?: number;
  /** Default: BFCL_BENCH_DEFAULTS.maxTokens. */
  maxTokens?: number;
  /**
   * For questions that expect a call. Default: "auto", "required" when every model is synthetic (see
   * defaultToolChoice). The relevance categories always run under "auto": "required" would answer them for the model.
   */
  toolChoice?: "auto" | "required";
  /** Default: BFCL_BENCH_DEFAULTS.seed. */
  seed?: number;
  /** Default: BENCH_DEFAULTS.threads. */
  threads?: number;
  /** Default: BENCH_DEFAULTS.contextSize. */
  contextSize?: number;
  /** Default: BENCH_DEFAULTS.gpu. */
  gpu?: GpuChoice;
  /** Default: `bench/results/bfcl-<timestamp>/`. */
  out?: string;
  /** Default: openBenchModel (tests swap it). */
  openModel?: BenchModelOpener;
  /** Called after each question. Default: none. */
  onQuestion?: (q: { model: string; mode: BfclMode; category: BfclCategory; done: number; planned: number }) => void;
  signal?: AbortSignal;
}


export const BFCL_FILES = Object.freeze({ report: "report.json", markdown: "report.md", chart: "chart.svg", results: "results.jsonl" });

/** Run the suite; returns the report and the folder it was written to. */
export async function runBfclBench(opts: BfclBenchOptions): Promise<{ report: BfclReport; dir: string }> {
  const started = Date.now();
  const categories = [...(opts.categories ?? BFCL_BENCH_DEFAULTS.categories)];
  const limit = opts.limit ?? BFCL_BENCH_DEFAULTS.limit;
  const dataDir = await ensureBfclData(categories, opts);
  const questions = categories.flatMap((c) => readBfclCategory(dataDir, c).slice(0, limit));
  const specs = opts.models ?? [{ spec: BENCH_DEFAULTS.model, lora: null }];
  const modes = opts.modes ?? ["unconstrained"];
  const settings = {
    threads: opts.threads ?? BENCH_DEFAULTS.threads,
    contextSize: opts.contextSize ?? BENCH_DEFAULTS.contextSize,
    gpu: opts.gpu ?? BENCH_DEFAULTS.gpu,
    toolChoice: "auto" as const,
    thinking: false,
  };
  const open = opts.openModel ?? openBenchModel;
  const handles = [];
  for (const spec of specs) handles.push(await open(spec, settings));
  const modelInfo = withLabels(handles.map((h) => h.info));
  const toolChoice = opts.toolChoice ?? defaultToolChoice(modelInfo);
  const maxTokens = opts.maxTokens ?? BFCL_BENCH_DEFAULTS.maxTokens;
  const seed = opts.seed ?? BFCL_BENCH_DEFAULTS.seed;
  const dir = opts.out ?? path.join(BFCL_BENCH_DEFAULTS.resultsDir, `bfcl-${new Date(started).toISOString().replace(/[:.]/g, "-")}`);
  await mkdir(dir, { recursive: true });
  const resultsFile = path.join(dir, BFCL_FILES.results);
  await writeFile(resultsFile, "");
  const results: BfclResult[] = [];
  const planned = handles.length * modes.length * questions.length;
  try {
    for (const [i, handle] of handles.entries()) {
      const label = modelInfo[i]!.label;
      for (const q of questions) {
        for (const mode of modes) {
          if (opts.signal?.aborted) break;
          const model = await handle.forRun(mode, label);
          const r = await runQuestion(q, (req) => model.generate(req), { mode, label, maxTokens, seed, toolChoice, signal: opts.signal });
          results.push(r);
          await appendFile(resultsFile, `${JSON.stringify(r)}\n`);
          opts.onQuestion?.({ model: label, mode, category: q.category, done: results.length, planned });
        }
      }
      await handle.close();
    }
  } finally {
    for (const h of handles) await h.close().catch(() => undefined);
  }
  const env = benchEnvironment();
  const synthetic = modelInfo.some((m) => m.synthetic);
  const notes = [
    `BFCL data at gorilla ${BFCL_COMMIT.slice(0, 12)} (Apache-2.0); each question is one turn, judged by qtc's AST checker written from BFCL's rules.`,
    `Tool choice ${toolChoice} where a call is expected; the relevance categories run under auto.`,
    "A question whose output has a rejected call block fails (BFCL cannot decode it); under irrelevance only valid calls count.",
  ];
  if (synthetic) notes.push("Synthetic weights: validity tests the guarantee; accuracy on random weights is noise, not model quality.");
  const report: BfclReport = {
    config: {
      suite: "bfcl", bfclCommit: BFCL_COMMIT, categories, limit: Number.isFinite(limit) ? limit : null, modes, modelInfo, synthetic,
      maxTokens, toolChoice, seed, threads: settings.threads, contextSize: settings.contextSize, gpu: settings.gpu,
      ...env, date: new Date(started).toISOString(), wallMs: Date.now() - started, notes,
    },
    rows: bfclRows(modelInfo, modes, categories, results),
  };
  await writeFile(path.join(dir, BFCL_FILES.report), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(dir, BFCL_FILES.markdown), renderBfclMarkdown(report, BFCL_FILES));
  await writeFile(path.join(dir, BFCL_FILES.chart), renderBfclChartSvg(report));
  return { report, dir };
}

/**
 * The tools a question offers: its function docs as declared (BFCL's types are read as aliases downstream), less
 * BFCL's `optional` markers (`true` on a property, or a list of names beside `required`), which say again what
 * `required` says (qtc's grammar compiler refuses keywords it does not know).
 */
export function bfclTools(q: Pick<BfclQuestion, "functions">): ToolInput[] {
  return q.functions.map((f) => ({ type: "function", function: { name: f.name, description: f.description, parameters: withoutOptional(f.parameters) as never } }));
}

function withoutOptional(node: unknown, depth = 0): unknown {
  if (depth > 64 || node === null || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map((n) => withoutOptional(n, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k === "optional" && (typeof v === "boolean" || (Array.isArray(v) && v.every((x) => typeof x === "string")))) continue;
    // enum, const and default hold data, not schemas: copied as they are.
    out[k] = k === "enum" || k === "const" || k === "default" ? v : withoutOptional(v, depth + 1);
  }
  return out;
}

type Generate = (req: Parameters<import("../harness/types.js").AgentModel["generate"]>[0]) => Promise<GenerateResult>;

/** Ask one question in one mode and judge the answer. A question qtc cannot run (its schema) fails with that code. */
export async function runQuestion(
  q: BfclQuestion,
  generate: Generate,
  o: { mode: BfclMode; label: string; maxTokens: number; seed: number; toolChoice: "auto" | "required"; signal?: AbortSignal },
): Promise<BfclResult> {
  const kind = checkerKindOf(q.category);
  const base = { model: o.label, mode: o.mode, category: q.category, id: q.id };
  let res: GenerateResult;
  try {
    res = await generate({
      messages: q.messages,
      tools: bfclTools(q),
      toolChoice: kind === "irrelevance" || kind === "relevance" ? "auto" : o.toolChoice,
      mode: o.mode,
      maxTokens: o.maxTokens,
      seed: o.seed,
      signal: o.signal,
    });
  } catch (e) {
    if (!(e instanceof QtcException) || e.code === "aborted") throw e;
    return { ...base, correct: false, error: e.code, message: e.message, calls: [], blocks: 0, validBlocks: 0, invalidByReason: {}, completionTokens: 0, decodeTokensPerSecond: 0, raw: "" };
  }
  const calls = res.toolCalls.map((c) => ({ name: c.name, arguments: c.parsedArguments }));
  const invalidByReason: Partial<Record<CallErrorCode, number>> = {};
  for (const e of res.errors) invalidByReason[e.reason] = (invalidByReason[e.reason] ?? 0) + 1;
  const verdict = checkBfcl(kind, q.functions, calls, q.expected, res.errors.length);
  return {
    ...base,
    correct: verdict.ok,
    error: verdict.ok ? null : verdict.error,
    message: verdict.ok ? null : verdict.message,
    calls,
    blocks: calls.length + res.errors.length,
    validBlocks: calls.length,
    invalidByReason,
    completionTokens: res.usage.completionTokens,
    decodeTokensPerSecond: res.timings.decodeTokensPerSecond,
    raw: res.raw,
  };
}

/** Rows per model × mode × category, then an "overall" row per model × mode. */
export function bfclRows(models: readonly BenchModelInfo[], modes: readonly BfclMode[], categories: readonly BfclCategory[], results: readonly BfclResult[]): BfclRow[] {
  const rows: BfclRow[] = [];
  for (const m of models) {
    for (const mode of modes) {
      const mine = results.filter((r) => r.model === m.label && r.mode === mode);
      const perCategory = categories.map((c) => rowOf(m, mode, c, mine.filter((r) => r.category === c)));
      rows.push(...perCategory);
      const overall = rowOf(m, mode, "overall", mine);
      const rated = perCategory.filter((r) => r.accuracy !== null);
      overall.accuracy = rated.length ? rated.reduce((s, r) => s + (r.accuracy ?? 0), 0) / rated.length : null;
      rows.push(overall);
    }
  }
  for (const r of rows) {
    const free = rows.find((u) => u.model === r.model && u.category === r.category && u.mode === "unconstrained");
    r.speedRatioVsUnconstrained = free && r.decodeTokensPerSecond !== null && free.decodeTokensPerSecond ? r.decodeTokensPerSecond / free.decodeTokensPerSecond : null;
  }
  return rows;
}

function rowOf(m: BenchModelInfo, mode: BfclMode, category: BfclRow["category"], rs: readonly BfclResult[]): BfclRow {
  const blocks = rs.reduce((s, r) => s + r.blocks, 0);
  const validBlocks = rs.reduce((s, r) => s + r.validBlocks, 0);
  const correct = rs.filter((r) => r.correct).length;
  const withCalls = rs.filter((r) => r.blocks > 0).length;
  const failedBy: Record<string, number> = {};
  for (const r of rs) if (r.error !== null) failedBy[r.error] = (failedBy[r.error] ?? 0) + 1;
  return {
    model: m.label, synthetic: m.synthetic, mode, category,
    questions: rs.length, correct, accuracy: ratio(correct, rs.length),
    questionsWithCalls: withCalls, callRate: ratio(withCalls, rs.length),
    blocks, validBlocks, validityRate: ratio(validBlocks, blocks),
    invalidByReason: rs.reduce<Partial<Record<CallErrorCode, number>>>((acc, r) => mergeCounts(acc, r.invalidByReason), {}),
    failedBy,
    completionTokens: rs.reduce((s, r) => s + r.completionTokens, 0),
    decodeTokensPerSecond: decodeRate(rs.map((r) => ({ tokens: r.completionTokens, tokensPerSecond: r.decodeTokensPerSecond }))),
    speedRatioVsUnconstrained: null,
  };
}
