// Owns: the model-level × sampler-level comparison (`npm run bench:model-fixes`): base, weak, tuned, distilled
// and LoRA-tuned tiny models × unconstrained / constrained × call policies, on the test half (the train half labelled when asked),
// and the "what each fix buys" paragraph generated from its numbers.

import { promises as fs } from "node:fs";
import path from "node:path";
import { CALL_POLICIES, type CallPolicy } from "../../dist/harness/call-policy.js";
import { DISTILLED_STAND_IN, ensureLoraStandIn, ensureStandIn, LORA_STAND_IN, LORA_STAND_IN_RECIPE, STAND_IN_LABEL, STAND_INS } from "../../dist/training/stand-ins.js";
import { splitTasks, type TaskHalf } from "../../dist/training/split.js";
import type { TrainProgress } from "../../dist/training/finetune.js";
import { fail } from "../../dist/errors.js";
import { modelsDir } from "../../dist/model/paths.js";
import { renderFixesChartSvg } from "./model-fixes-chart.js";
import { BFCL_BENCH_DEFAULTS, runBfclBench, type BfclRow } from "../../dist/bench/bfcl.js";
import { ensureBfclData } from "../../dist/bench/bfcl-data.js";
import type { FixRow } from "./model-fixes-rows.js";
import { runBench, type BenchEvent } from "../../dist/bench/run-bench.js";
import type { BenchRow } from "../../dist/bench/types.js";

export type { FixRow } from "./model-fixes-rows.js";

export interface ModelFixesOptions {
  /** Output folder: one bench folder per half × policy, plus model-fixes.json and model-fixes.md. */
  out: string;
  /** Bench tasks. Default: bench/tasks. */
  tasksDir?: string;
  /** Halves to measure; the train half's rows are labelled (the tuned models saw its demonstrations). Default: ["test"]. */
  halves?: TaskHalf[];
  /** Default: every policy. */
  policies?: CallPolicy[];
  /** Default: 1. */
  seeds?: number;
  /** Default: 4 (a fix takes read, write, test, answer). */
  maxTurns?: number;
  /** Token budget of one turn. Default: 256 (a short call is ~30 tokens; see MODEL_FIXES_DEFAULTS). */
  maxTokens?: number;
  /** Default: 2. */
  threads?: number;
  /**
   * BFCL rows beside the task rows: the first `limit` questions of each default category, per model × mode, from
   * `dataDir` (else the user cache, downloaded at first use); false leaves them out. Default: { limit: 10 }.
   */
  bfcl?: { limit: number; dataDir?: string } | false;
  /**
   * Which of MODEL_FIXES_MODELS get rows (a shorter run trains only the stand-ins it names; the LoRA-tuned
   * synthetic:tiny-lora and the distilled synthetic:tiny-distilled are trained on first use like the others).
   * Default: MODEL_FIXES_DEFAULT_MODELS (all but the distilled stand-in).
   */
  models?: readonly string[];
  /** Modes of every row (task and BFCL). Default: both, unconstrained first. */
  modes?: readonly FixMode[];
  /** The task rows (the halves × policies); false runs only BFCL's. Default: true. */
  tasks?: boolean;
  onEvent?: (e: BenchEvent | { type: "stand-in"; name: string; ms: number } | { type: "train"; name: string; progress: TrainProgress } | { type: "data-run"; name: string; done: number; planned: number }) => void;
}

export const MODEL_FIXES_DEFAULTS = Object.freeze({ tasksDir: "bench/tasks", halves: ["test"] as TaskHalf[], policies: [...CALL_POLICIES], seeds: 1, maxTurns: 4, maxTokens: 256, threads: 2, bfcl: { limit: 10 } as { limit: number; dataDir?: string } | false, models: [] as readonly string[], modes: ["unconstrained", "constrained"] as readonly FixMode[], tasks: true });

export type FixMode = "unconstrained" | "constrained";

/**
 * The models, in row order: the random base, the stand-ins trained from it (weak and tuned on demonstrations,
 * distilled on its own constrained runs), and the LoRA-tuned one.
 */
export const MODEL_FIXES_MODELS = ["synthetic:tiny", ...STAND_INS.map((s) => `synthetic:${s}`), `synthetic:${LORA_STAND_IN}`] as const;

/**
 * The models a run measures unless told (ModelFixesOptions.models): all but the distilled stand-in, which is
 * opt-in (`--distilled`, or `--models` naming it). Its data runs, training and rows add about a quarter to the
 * full bench (docs/training.md has the measurement), which would take the full run past its hour on this machine.
 */
export const MODEL_FIXES_DEFAULT_MODELS: readonly string[] = MODEL_FIXES_MODELS.filter((m) => m !== `synthetic:${DISTILLED_STAND_IN}`);

/** What the bench loads for a row's model: a spec, plus an adapter for the LoRA stand-in. */
interface FixModel {
  label: string;
  spec: string;
  lora: string | null;
}

const LORA_KIND = `${STAND_IN_LABEL} (LoRA rank ${LORA_STAND_IN_RECIPE.lora.rank})`;
/** The distilled stand-in's kind: what it learned from is the point of its row. */
export const DISTILLED_KIND = `${STAND_IN_LABEL} (distilled: its own constrained calls)`;

/** A row's kind, from its model spec. */
export function kindOf(spec: string): string {
  if (spec === "synthetic:tiny") return "random weights";
  if (spec === `synthetic:${LORA_STAND_IN}`) return LORA_KIND;
  return spec === `synthetic:${DISTILLED_STAND_IN}` ? DISTILLED_KIND : STAND_IN_LABEL;
}

/** The LoRA-tuned stand-in reaches at least this share of the fully tuned one's unconstrained validity (issue 29). */
export const LORA_VALIDITY_SHARE = 0.8;

export interface LoraVsTuned {
  lora: number | null;
  tuned: number | null;
  /** lora / tuned; null when either is n/a or tuned is 0. */
  share: number | null;
  meets: boolean;
}

export interface ModelFixesReport {
  rows: FixRow[];
  /** BFCL's rows (per category and overall) for the same models × modes, tool choice auto; absent without them. */
  bfclRows?: BfclRow[];
  /** The LoRA stand-in's unconstrained validity against the tuned one's (test half, auto); absent without LoRA rows. */
  loraVsTuned?: LoraVsTuned;
  paragraph: string;
  standIns: { name: string; ms: number }[];
  wallMs: number;
}

const pct = (x: number | null): string => (x === null ? "n/a" : `${Math.round(x * 100)}%`);

function rowOf(r: BenchRow, spec: string, half: TaskHalf, policy: CallPolicy): FixRow {
  return {
    half,
    policy,
    model: spec,
    kind: kindOf(spec),
    mode: r.mode,
    runs: r.runs,
    callRate: r.callRate,
    validityRate: r.validityRate,
    taskSuccessRate: r.taskSuccessRate,
    decodeTokensPerSecond: r.decodeTokensPerSecond,
    cutOff: r.invalidByReason.truncated ?? 0,
  };
}

/** The Done-when check of issue 29: LoRA's unconstrained validity as a share of full fine-tuning's. */
export function loraVsTuned(rows: readonly FixRow[]): LoraVsTuned | undefined {
  const find = (model: string): FixRow | undefined => rows.find((r) => r.half === "test" && r.policy === "auto" && r.mode === "unconstrained" && r.model === model);
  const [l, t] = [find(`synthetic:${LORA_STAND_IN}`), find("synthetic:tiny-tuned")];
  if (!l || !t) return undefined;
  const share = l.validityRate !== null && t.validityRate ? l.validityRate / t.validityRate : null;
  return { lora: l.validityRate, tuned: t.validityRate, share, meets: share !== null && share >= LORA_VALIDITY_SHARE };
}

/** "What each fix buys", from the test half's numbers: grammar alone, fine-tuning alone, both, and the policies. */
export function whatEachFixBuys(rows: readonly FixRow[]): string {
  const find = (model: string, mode: string, policy: CallPolicy = "auto"): FixRow | undefined =>
    rows.find((r) => r.half === "test" && r.model === model && r.mode === mode && r.policy === policy);
  const base = find("synthetic:tiny", "unconstrained");
  const baseC = find("synthetic:tiny", "constrained");
  const tuned = find("synthetic:tiny-tuned", "unconstrained");
  const both = find("synthetic:tiny-tuned", "constrained");
  const parts: string[] = [];
  if (base && baseC) parts.push(`The grammar alone took the random base's validity from ${pct(base.validityRate)} to ${pct(baseC.validityRate)} (call rate ${pct(base.callRate)} → ${pct(baseC.callRate)}): it fixes calls once they open, not calls that never happen.`);
  if (base && tuned) parts.push(`Fine-tuning alone took the call rate from ${pct(base.callRate)} to ${pct(tuned.callRate)} and validity to ${pct(tuned.validityRate)}; task success ${pct(base.taskSuccessRate)} → ${pct(tuned.taskSuccessRate)}.`);
  if (both) parts.push(`Together (tuned + grammar): call rate ${pct(both.callRate)}, validity ${pct(both.validityRate)}, task success ${pct(both.taskSuccessRate)}.`);
  const lv = loraVsTuned(rows);
  const distilled = find(`synthetic:${DISTILLED_STAND_IN}`, "unconstrained");
  if (distilled) parts.push(distilledSentence(distilled, tuned));
  if (lv) parts.push(`LoRA (rank ${LORA_STAND_IN_RECIPE.lora.rank}, base frozen) reached ${pct(lv.lora)} validity unconstrained against full fine-tuning's ${pct(lv.tuned)}: ${lv.share === null ? "no share to compare" : `${pct(lv.share)} of it`}, ${lv.meets ? "at or above" : "below"} the ${pct(LORA_VALIDITY_SHARE)} mark.`);
  const policies: { p: CallPolicy; r: FixRow }[] = [];
  for (const p of CALL_POLICIES) {
    const r = p === "auto" ? undefined : find("synthetic:tiny", "constrained", p);
    if (r) policies.push({ p, r });
  }
  if (policies.length) parts.push(`On the base model under the grammar, the call policies gave call rates of ${policies.map((x) => `${pct(x.r.callRate)} (${x.p})`).join(", ")} against ${pct(baseC?.callRate ?? null)} under auto.`);
  return parts.join(" ") || "No rows to compare.";
}

/** Grammar distillation (issue 29): trained only on the calls the grammar made for the base, measured without it. */
function distilledSentence(distilled: FixRow, tuned: FixRow | undefined): string {
  const against = tuned ? ` against the tuned stand-in's ${pct(tuned.validityRate)} (call rate ${pct(tuned.callRate)})` : "";
  const wrote = distilled.validityRate === null ? "opened no call" : `wrote ${pct(distilled.validityRate)} valid calls`;
  return `Trained only on the base's own constrained calls, the distilled stand-in ${wrote} without the grammar (call rate ${pct(distilled.callRate)})${against}.`;
}

/** The table of the report, in Markdown. */
export function renderFixesMarkdown(r: ModelFixesReport): string {
  const head = "| half | policy | model | kind | mode | runs | call rate | validity | task success | tok/s | cut off |\n|---|---|---|---|---|---:|---:|---:|---:|---:|---:|";
  const lines = r.rows.map((x) =>
    `| ${x.half === "train" ? "train (seen in training)" : "test"} | ${x.policy} | ${x.model} | ${x.kind} | ${x.mode} | ${x.runs} | ${pct(x.callRate)} | ${pct(x.validityRate)} | ${pct(x.taskSuccessRate)} | ${x.decodeTokensPerSecond?.toFixed(0) ?? "n/a"} | ${x.cutOff} |`);
  const trained = r.standIns.map((s) => `${s.name} ${(s.ms / 1000).toFixed(0)} s`).join(", ");
  return `# Model-level × sampler-level fixes\n\n${r.paragraph}\n\n${head}\n${lines.join("\n")}\n${bfclMarkdown(r.bfclRows)}\nStand-ins trained: ${trained || "cached"}. Wall time ${(r.wallMs / 60000).toFixed(1)} min.\n`;
}

function bfclMarkdown(rows: readonly BfclRow[] | undefined): string {
  if (!rows?.length) return "";
  const head = "| model | mode | category | questions | AST accuracy | call rate | validity | tok/s |\n|---|---|---|---:|---:|---:|---:|---:|";
  const lines = rows.map((x) => `| ${x.model} | ${x.mode} | ${x.category} | ${x.questions} | ${pct(x.accuracy)} | ${pct(x.callRate)} | ${pct(x.validityRate)} | ${x.decodeTokensPerSecond?.toFixed(0) ?? "n/a"} |`);
  return `\n## BFCL (tool choice auto)\n\n${head}\n${lines.join("\n")}\n`;
}

/** Make the stand-ins, run the comparison, write model-fixes.json and model-fixes.md into `out`. */
export async function runModelFixes(opts: ModelFixesOptions): Promise<ModelFixesReport> {
  const o = { ...MODEL_FIXES_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as Required<ModelFixesOptions>;
  const started = Date.now();
  const standIns: { name: string; ms: number }[] = [];
  const wanted = o.models.length ? o.models : MODEL_FIXES_DEFAULT_MODELS;
  const unknown = wanted.filter((m) => !(MODEL_FIXES_MODELS as readonly string[]).includes(m));
  if (unknown.length) fail("invalid_option", `bench:model-fixes has no model ${unknown.join(", ")}; choose from ${MODEL_FIXES_MODELS.join(", ")}`);
  // BFCL's data first: offline without a copy, the run fails here, not after the training and the task runs.
  const bfclData = o.bfcl ? await ensureBfclData(BFCL_BENCH_DEFAULTS.categories, { ...(o.bfcl.dataDir !== undefined ? { dataDir: o.bfcl.dataDir } : {}) }) : undefined;
  for (const name of STAND_INS.filter((s) => wanted.includes(`synthetic:${s}`))) {
    const t = Date.now();
    const onDataRun = (done: number, planned: number) => o.onEvent?.({ type: "data-run", name, done, planned });
    await ensureStandIn(name, { modelsDir: modelsDir(), tasksDir: path.resolve(o.tasksDir), onProgress: (progress) => o.onEvent?.({ type: "train", name, progress }), onDataRun });
    standIns.push({ name, ms: Date.now() - t });
    o.onEvent?.({ type: "stand-in", name, ms: Date.now() - t });
  }
  const models: FixModel[] = [];
  for (const spec of MODEL_FIXES_MODELS.filter((m) => wanted.includes(m))) {
    models.push(spec === `synthetic:${LORA_STAND_IN}` ? await loraModel(o, standIns) : { label: spec, spec, lora: null });
  }
  const split = await splitTasks(o.tasksDir);
  const rows: FixRow[] = [];
  for (const half of o.tasks ? o.halves : []) {
    const ids = split[half].map((d) => path.basename(d));
    for (const policy of o.policies) {
      const outcome = await runBench({
        models: models.map(({ spec, lora }) => ({ spec, lora })),
        modes: [...o.modes],
        tasks: ids.join(","),
        tasksRoot: path.resolve(o.tasksDir),
        seeds: o.seeds,
        maxTurns: o.maxTurns,
        maxTokens: o.maxTokens,
        toolChoice: "auto",
        callPolicy: policy,
        threads: o.threads,
        out: path.join(o.out, `${half}-${policy}`),
        onEvent: o.onEvent,
      });
      outcome.report.rows.forEach((r, i) => rows.push(rowOf(r, models[Math.floor(i / o.modes.length)]!.label, half, policy)));
    }
  }
  let bfclRows: BfclRow[] | undefined;
  if (o.bfcl) {
    const bfcl = await runBfclBench({
      models: models.map(({ spec, lora }) => ({ spec, lora })),
      modes: [...o.modes],
      limit: o.bfcl.limit,
      dataDir: bfclData,
      maxTokens: o.maxTokens,
      toolChoice: "auto",
      threads: o.threads,
      out: path.join(o.out, "bfcl"),
    });
    bfclRows = bfcl.report.rows;
  }
  const lv = loraVsTuned(rows);
  const report: ModelFixesReport = { rows, ...(bfclRows ? { bfclRows } : {}), ...(lv ? { loraVsTuned: lv } : {}), paragraph: whatEachFixBuys(rows), standIns, wallMs: Date.now() - started };
  await fs.mkdir(o.out, { recursive: true });
  await fs.writeFile(path.join(o.out, "model-fixes.json"), JSON.stringify(report, null, 2) + "\n");
  await fs.writeFile(path.join(o.out, "model-fixes.md"), renderFixesMarkdown(report));
  await fs.writeFile(path.join(o.out, "model-fixes.svg"), renderFixesChartSvg(rows));
  return report;
}

/** Train (or find) the LoRA stand-in; the bench loads it as its F32 base plus the adapter. */
async function loraModel(o: Required<ModelFixesOptions>, standIns: { name: string; ms: number }[]): Promise<FixModel> {
  const t = Date.now();
  const onProgress = (progress: TrainProgress) => o.onEvent?.({ type: "train", name: LORA_STAND_IN, progress });
  const { base, adapter } = await ensureLoraStandIn({ modelsDir: modelsDir(), tasksDir: path.resolve(o.tasksDir), onProgress });
  standIns.push({ name: LORA_STAND_IN, ms: Date.now() - t });
  o.onEvent?.({ type: "stand-in", name: LORA_STAND_IN, ms: Date.now() - t });
  return { label: `synthetic:${LORA_STAND_IN}`, spec: base, lora: adapter };
}
