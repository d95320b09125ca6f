// Owns: running a bench: plan the runs, open the models, run each task × seed × mode through the agent loop,
// append every finished run to transcripts.jsonl, keep report.json current, and write the report files at the
// end — also when stopped early (the runs that finished make a partial report) — and continue with `resume`.

import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fail } from "../errors.js";
import { runAgent } from "../harness/loop.js";
import { resolveSandbox, type OsSandbox, type SandboxMode } from "../harness/os-sandbox.js";
import { packageRoot } from "../model/paths.js";
import { BENCH_DEFAULTS, benchContextSize } from "./defaults.js";
import { benchEnvironment } from "./environment.js";
import { computeRows } from "./metrics.js";
import { type BenchLoadSettings, type BenchModelHandle, type BenchModelOpener, openBenchModel } from "./models.js";
import { defaultToolChoice, planRuns, rowSlots, seedList, selectTasks, withLabels } from "./plan.js";
import { appendRecord, benchFiles, readRecords, readReportConfig, writeReport, writeReportJson } from "./store.js";
import type { BenchConfig, BenchPlanConfig, BenchReport, BenchRunRecord, PlannedRun, ReferenceKind } from "./types.js";
import type { CallPolicy } from "../harness/call-policy.js";

export interface BenchOptions {
  /** The `--model` entries. Default: [{ spec: BENCH_DEFAULTS.model, lora: null }]. */
  models?: BenchPlanConfig["models"];
  /** Modes in row order (see selectModes). Default: ["unconstrained"]. */
  modes?: BenchPlanConfig["modes"];
  /** `--tasks`: N, a folder, or ids. Default: every task in BENCH_DEFAULTS.tasksDir. */
  tasks?: string;
  /** Folder `--tasks` N and ids refer to. Default: `<package root>/bench/tasks`. */
  tasksRoot?: string;
  /** Default: BENCH_DEFAULTS.seeds (3). */
  seeds?: number;
  /** Default: 8. */
  maxTurns?: number;
  /** Default: 512. */
  maxTokens?: number;
  /** Default: "auto"; "required" when every model is `synthetic:*` (see defaultToolChoice). */
  toolChoice?: "auto" | "required";
  /** The agent loop's call policy for every run. Default: "auto". */
  callPolicy?: CallPolicy;
  /** Default: false. */
  thinking?: boolean;
  /** Default: BENCH_DEFAULTS.threads. */
  threads?: number;
  /** Context size in tokens. Default: benchContextSize(maxTurns, maxTokens) (14336 for 8 turns × 512 tokens). */
  contextSize?: number;
  /** Default: "auto". */
  gpu?: BenchLoadSettings["gpu"];
  /** Output folder. Default: `bench/results/<timestamp>/` under the working directory. */
  out?: string;
  /**
   * Continue the bench in this folder: its config is used, runs already in its transcripts.jsonl are skipped.
   * Plan fields named in `explicit` must equal the stored ones (else `invalid_option`). Default: none.
   */
  resume?: string;
  /** Plan fields the caller set on purpose (CLI flags given); checked against a resumed config. Default: none. */
  explicit?: ReadonlySet<keyof BenchPlanConfig>;
  /** Stops the bench after the run in progress (that run is not kept). Default: none. */
  signal?: AbortSignal;
  /** Called as the bench goes. Default: none. */
  onEvent?: (event: BenchEvent) => void;
  /** Opens the models. Default: openBenchModel. */
  openModel?: BenchModelOpener;
  /** Models directory. Default: modelsDir(). */
  modelsDir?: string;
  /** Where run folders are created. Default: os.tmpdir(). */
  tmpRoot?: string;
  /** The OS sandbox of the runs' code; "off" allows unconfined runs (see SandboxLimits.sandbox). Default: "bwrap". */
  sandbox?: SandboxMode;
}

export type BenchEvent =
  | { type: "start"; dir: string; planned: number; done: number; config: BenchConfig }
  /** A model is being loaded for its first run (in `mode`'s engine); it can take minutes. */
  | { type: "loading"; model: string; mode: PlannedRun["mode"] }
  | { type: "loaded"; model: string; mode: PlannedRun["mode"]; ms: number }
  /** A run begins (after its model is loaded). */
  | { type: "running"; model: string; mode: PlannedRun["mode"]; task: string; seed: number; planned: number; done: number }
  | { type: "run"; record: BenchRunRecord; planned: number; done: number }
  | { type: "stopping" };

export interface BenchOutcome {
  report: BenchReport;
  /** The output folder. */
  dir: string;
  /** True when the signal stopped it before every run finished. */
  interrupted: boolean;
}

const timestamp = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, "Z").replace(/:/g, "-");

/** A plan whose tool choice may still be open (null: chosen from the models once they are resolved). */
export type DraftPlan = Omit<BenchPlanConfig, "toolChoice"> & { toolChoice: BenchPlanConfig["toolChoice"] | null };

/** Build the plan from options (tasks resolved, seeds listed). */
export async function buildPlan(opts: BenchOptions): Promise<DraftPlan> {
  const tasks = await selectTasks(opts.tasks, opts.tasksRoot ?? path.join(packageRoot(), BENCH_DEFAULTS.tasksDir));
  const models = opts.models?.length ? opts.models.map((m) => ({ spec: m.spec, lora: m.lora })) : [{ spec: BENCH_DEFAULTS.model, lora: null }];
  return {
    models,
    modes: opts.modes ?? ["unconstrained"],
    tasks: tasks.ids,
    tasksDir: tasks.dir,
    seeds: seedList(opts.seeds ?? BENCH_DEFAULTS.seeds),
    maxTurns: opts.maxTurns ?? BENCH_DEFAULTS.maxTurns,
    maxTokens: opts.maxTokens ?? BENCH_DEFAULTS.maxTokens,
    // Filled in from the models once they are resolved when not given (see defaultToolChoice).
    toolChoice: opts.toolChoice ?? null,
    callPolicy: opts.callPolicy ?? "auto",
    thinking: opts.thinking ?? BENCH_DEFAULTS.thinking,
  };
}

/** The plan fields of `given` named in `explicit` that differ from `stored`. */
export function planConflicts(stored: DraftPlan, given: DraftPlan, explicit: ReadonlySet<keyof BenchPlanConfig>): string[] {
  return [...explicit].filter((k) => JSON.stringify(stored[k]) !== JSON.stringify(given[k]));
}

const pickPlan = (c: BenchPlanConfig): BenchPlanConfig => ({
  models: c.models,
  modes: c.modes,
  tasks: c.tasks,
  tasksDir: c.tasksDir,
  seeds: c.seeds,
  maxTurns: c.maxTurns,
  maxTokens: c.maxTokens,
  toolChoice: c.toolChoice,
  callPolicy: c.callPolicy ?? "auto",
  thinking: c.thinking,
});

/** Run a bench (or continue one). Throws QtcException for bad input; a failing model ends it after writing a partial report. */
export async function runBench(opts: BenchOptions = {}): Promise<BenchOutcome> {
  const started = Date.now();
  let plan: DraftPlan;
  let stored: BenchConfig | null = null;
  let dir: string;
  if (opts.resume !== undefined) {
    dir = path.resolve(opts.resume);
    if (opts.out !== undefined && path.resolve(opts.out) !== dir) fail("invalid_option", "--resume continues in its own folder; drop --out");
    stored = await readReportConfig(dir);
    plan = pickPlan(stored);
    if (opts.explicit?.size) {
      const given = await buildPlan(opts);
      const diff = planConflicts(plan, given, opts.explicit);
      if (diff.length) fail("invalid_option", `--resume ${opts.resume}: ${diff.join(", ")} differ from the bench being resumed; drop those flags`);
    }
    for (const t of plan.tasks) {
      if (!existsSync(path.join(plan.tasksDir, t))) fail("invalid_option", `--resume: task ${t} is gone from ${plan.tasksDir}`);
    }
  } else {
    plan = await buildPlan(opts);
    dir = path.resolve(opts.out ?? path.join(BENCH_DEFAULTS.resultsDir, timestamp(new Date())));
    const t = benchFiles(dir).transcripts;
    if (existsSync(t) && statSync(t).size > 0) fail("invalid_option", `${dir} already holds a bench: continue it with --resume ${dir}, or pick another --out`);
  }
  // Checked once, before any model loads: no sandbox refuses the whole bench (sandbox_unavailable).
  const sandbox = await resolveSandbox(opts.sandbox ?? "bwrap");
  const files = benchFiles(dir);
  const records = stored ? await readRecords(files.transcripts) : [];
  const settings: BenchLoadSettings = {
    threads: opts.threads ?? stored?.threads ?? BENCH_DEFAULTS.threads,
    contextSize: opts.contextSize ?? stored?.contextSize ?? benchContextSize(plan.maxTurns, plan.maxTokens),
    gpu: opts.gpu ?? (stored?.gpu as BenchLoadSettings["gpu"] | undefined) ?? BENCH_DEFAULTS.gpu,
    toolChoice: plan.toolChoice ?? "auto",
    thinking: plan.thinking,
    modelsDir: opts.modelsDir,
  };

  const open = opts.openModel ?? openBenchModel;
  const handles: BenchModelHandle[] = [];
  try {
    for (const m of plan.models) handles.push(await open(m, settings));
    for (const h of handles) await h.check?.(plan.modes);
  } catch (e) {
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
    throw e;
  }
  const modelInfo = withLabels(handles.map((h) => h.info));
  const defaulted = plan.toolChoice === null;
  // Handles read the tool choice when a run starts, so settling it here reaches them.
  settings.toolChoice = plan.toolChoice ?? defaultToolChoice(modelInfo);
  const fullPlan: BenchPlanConfig = { ...plan, toolChoice: settings.toolChoice };
  return await execute(fullPlan, { dir, stored, records, handles, modelInfo, settings, defaulted, started, sandbox }, opts);
}

interface Prepared {
  dir: string;
  stored: BenchConfig | null;
  records: BenchRunRecord[];
  handles: BenchModelHandle[];
  modelInfo: BenchConfig["modelInfo"];
  settings: BenchLoadSettings;
  /** The tool choice was not given and was chosen from the models. */
  defaulted: boolean;
  started: number;
  sandbox: OsSandbox;
}

async function execute(plan: BenchPlanConfig, p: Prepared, opts: BenchOptions): Promise<BenchOutcome> {
  const { dir, stored, records, handles, modelInfo, settings, started, sandbox } = p;
  const files = benchFiles(dir);
  const runs = planRuns(plan);
  const slots = rowSlots(plan);
  const env = benchEnvironment();
  const reference: ReferenceKind | null = plan.modes.includes("reference") ? "node-llama-cpp" : null;
  const config: BenchConfig = {
    ...plan,
    modelInfo,
    synthetic: modelInfo.some((m) => m.synthetic),
    reference,
    threads: settings.threads,
    contextSize: settings.contextSize,
    gpu: settings.gpu,
    versions: env.versions,
    platform: env.platform,
    cpu: env.cpu,
    date: stored?.date ?? new Date(started).toISOString(),
    runsPlanned: runs.length,
    runsDone: 0,
    partial: true,
    wallMs: stored?.wallMs ?? 0,
    notes: benchNotes(plan, modelInfo, reference, env.versions.nodeLlamaCpp, p.defaulted || (stored?.notes ?? []).some((n) => n.startsWith(DEFAULTED_NOTE))),
  };
  const report = (): BenchReport => ({
    config: { ...config, runsDone: records.length, partial: records.length < runs.length, wallMs: (stored?.wallMs ?? 0) + (Date.now() - started) },
    rows: computeRows(modelInfo, slots, records),
  });

  const done = new Set(records.map((r) => r.bench.key));
  const todo = runs.filter((r) => !done.has(r.key));
  await writeReportJson(dir, report());
  opts.onEvent?.({ type: "start", dir, planned: runs.length, done: records.length, config: report().config });

  let failure: unknown = null;
  // Engines (model × runtime or reference) already loaded: the first run of each announces the load.
  const loaded = new Set<string>();
  try {
    let current = -1;
    for (const run of todo) {
      if (opts.signal?.aborted) break;
      if (run.modelIndex !== current) {
        if (current >= 0) await handles[current]!.close();
        current = run.modelIndex;
        loaded.clear();
      }
      const label = modelInfo[run.modelIndex]!.label;
      const engine = run.mode === "reference" ? "reference" : "runtime";
      const progress = { first: !loaded.has(engine), planned: runs.length, done: records.length };
      loaded.add(engine);
      const record = await runOne(run, handles[run.modelIndex]!, label, plan, opts, sandbox, progress);
      if (record === null) break;
      await appendRecord(files.transcripts, record);
      records.push(record);
      await writeReportJson(dir, report());
      opts.onEvent?.({ type: "run", record, planned: runs.length, done: records.length });
    }
  } catch (e) {
    failure = e;
  } finally {
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
  }
  const interrupted = records.length < runs.length && failure === null;
  const final = report();
  await writeReport(dir, final);
  if (failure !== null) throw failure;
  return { report: final, dir, interrupted };
}

/** One run; null when the signal stopped it before it finished (it is then not kept). */
async function runOne(
  run: PlannedRun,
  handle: BenchModelHandle,
  label: string,
  plan: BenchPlanConfig,
  opts: BenchOptions,
  sandbox: OsSandbox,
  progress: { first: boolean; planned: number; done: number },
): Promise<BenchRunRecord | null> {
  const loadStarted = Date.now();
  if (progress.first) opts.onEvent?.({ type: "loading", model: label, mode: run.mode });
  const model = await handle.forRun(run.mode, label);
  if (progress.first) opts.onEvent?.({ type: "loaded", model: label, mode: run.mode, ms: Date.now() - loadStarted });
  opts.onEvent?.({ type: "running", model: label, mode: run.mode, task: run.task, seed: run.seed, planned: progress.planned, done: progress.done });
  try {
    const agentRun = await runAgent({
      task: path.join(plan.tasksDir, run.task),
      model,
      // The reference model ignores the mode; its calls come from node-llama-cpp's own (lazy) grammar.
      mode: run.mode === "reference" ? "constrained" : run.mode,
      seed: run.seed,
      maxTurns: plan.maxTurns,
      maxTokens: plan.maxTokens,
      toolChoice: plan.toolChoice,
      callPolicy: plan.callPolicy ?? "auto",
      thinking: plan.thinking,
      signal: opts.signal,
      tmpRoot: opts.tmpRoot,
      sandbox,
    });
    if (opts.signal?.aborted) return null;
    return { ...agentRun, bench: { key: run.key, modelIndex: run.modelIndex, model: label, mode: run.mode } };
  } finally {
    await model.close?.().catch(() => undefined);
  }
}

const DEFAULTED_NOTE = "Tool choice `required` by default";

/** What a reader of the report should know about this bench's rows. */
function benchNotes(plan: BenchPlanConfig, models: BenchConfig["modelInfo"], reference: ReferenceKind | null, nlcVersion: string, defaulted: boolean): string[] {
  const notes: string[] = [];
  if (models.some((m) => m.synthetic)) {
    notes.push("Synthetic models have random weights: their validity figures test the grammar's guarantee, not model quality.");
  }
  if (reference) {
    notes.push(
      `Reference row: node-llama-cpp ${nlcVersion}'s own function calling (LlamaChatSession + defineChatSessionFunction for the 5 tools, ` +
        `QwenChatWrapper, maxParallelFunctionCalls 1${plan.toolChoice === "required" ? ", a call forced through the wrapper's noPrefixTrigger" : ""}). ` +
        "Each call it makes is spelled back as a hermes block from the params text it streamed and judged by qtc's parser like every row. " +
        "A turn that reaches the token budget stops the session (stopOnAbortSignal), which ends the run; a call cut off there counts as a truncated block. " +
        "It does not report forced tokens (n/a).",
    );
    for (const m of models) if (m.source === "replay") notes.push(`${m.label} is a replay: it has no reference row.`);
  }
  if (defaulted && plan.toolChoice === "required") {
    notes.push(
      `${DEFAULTED_NOTE} (every model is synthetic: random weights practically never open a call under \`auto\`, ` +
        "so there would be no block to judge). Every turn must call, so runs go to the turn limit; pass --tool-choice auto to change it.",
    );
  }
  if (models.some((m) => m.lora)) notes.push("LoRA adapters are applied by node-llama-cpp when the model's context is created.");
  return notes;
}
