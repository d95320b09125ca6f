// Owns: the trained stand-ins `synthetic:tiny-tuned`, `synthetic:tiny-weak` and `synthetic:tiny-distilled`: the
// tiny synthetic model fine-tuned on train-half data (demonstrations, or its own constrained runs) with a fixed
// recipe and seed, made on first use and cached in the models folder with a sidecar that names the recipe (a
// changed recipe, data or driver remakes them).

import { createHash } from "node:crypto";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LLAMA_PATCH } from "../engines/llama-build.js";
import { fail } from "../errors.js";
import { resolveSandbox } from "../harness/os-sandbox.js";
import type { StandInMaker } from "../model/resolve.js";
import { writeSyntheticModel } from "../model/synthetic.js";
import { demonstrate, type DemonstrationPlan } from "./demonstrations.js";
import { distilledData, type DistillSettings, type DistillSummary } from "./distill.js";
import { finetune, type FinetuneResult, type TrainProgress } from "./finetune.js";
import type { LoraOptions } from "./lora.js";
import { splitTasks } from "./split.js";
import { TRAINER_SOURCE } from "./trainer-build.js";
import type { Conversation } from "./types.js";

export const STAND_INS = ["tiny-tuned", "tiny-weak", "tiny-distilled"] as const;
export type StandInName = (typeof STAND_INS)[number];

/** The stand-in trained on the base's own constrained runs (grammar distillation, issue 29). */
export const DISTILLED_STAND_IN = "tiny-distilled" satisfies StandInName;

/** What reports call these models: neither random weights nor a real Qwen3. */
export const STAND_IN_LABEL = "trained stand-in";

/**
 * The recipes, fixed: same data, seed and steps on every machine. A stage is one trainer run; a later stage
 * starts from the one before. On 256-token windows the model first learns the call's markup but not which of
 * the repeated ` "` and `":` tokens of `{"name": "run_tests", "arguments": {}}` comes next (teacher-forced
 * accuracy sits at 91.3% for 20-80 epochs, depending on the rate); in the first stage's last epochs it starts
 * telling them apart, the second, at a lower rate, takes it to 100%. The third keeps it on 768-token windows,
 * which hold a whole first-turn prompt as the bench sends it: trained on 256-token windows only, the model wrote
 * `{"name": "arguments": …` on the bench's ~650-token prompt. `weak` is the first stage stopped after 24
 * optimizer steps. docs/training.md has the runs behind these numbers.
 */
export interface TrainStage {
  contextSize: number;
  epochs: number;
  lr: number;
  /** The rate falls linearly from `lr` to this over the stage. */
  lrEnd: number;
  seed: number;
  maxSteps?: number;
}

/** A recipe trained on the train half's demonstrations. */
export interface DemonstrationRecipe {
  /** Which demonstrations (see DemonstrationOptions.plan). */
  plan: DemonstrationPlan;
  stages: readonly TrainStage[];
}

/** A recipe trained on the training base's own constrained runs on the train half (grammar distillation). */
export interface DistilledRecipe {
  distill: DistillSettings;
  stages: readonly TrainStage[];
}

export type StandInRecipe = DemonstrationRecipe | DistilledRecipe;

const LEARN_THE_CALL: TrainStage = { contextSize: 256, epochs: 30, lr: 5e-4, lrEnd: 5e-5, seed: 0 };
const SETTLE_IT: TrainStage = { contextSize: 256, epochs: 30, lr: 2e-4, lrEnd: 2e-5, seed: 2 };
const KEEP_IT_ON_FULL_PROMPTS: TrainStage = { contextSize: 768, epochs: 40, lr: 2e-4, lrEnd: 2e-5, seed: 3 };

/**
 * Grammar distillation (issue 29): the data are the calls the grammar made for the random training base itself
 * (two seeds × the 20 train tasks, one forced call each: 40 samples, as many as tuned's probe data), and the
 * stages are tuned's first and last, shorter. Tuned's middle stage exists to take one fixed call to 100%
 * teacher-forced accuracy; these calls carry the base's random argument text, which no stage takes to 100%,
 * so the recipe keeps what teaches the markup (stage 1) and what keeps it on whole bench prompts (stage 3), at
 * about a third of tuned's epochs so the row fits the full bench's hour. One turn a run: after its forced call
 * the base writes random text to the token limit, a cut-off turn the transcript path drops anyway.
 */
const DISTILLED: DistilledRecipe = {
  distill: { seeds: [0, 1], callPolicy: "required-first", maxTurns: 1, maxTokens: 256 },
  stages: [LEARN_THE_CALL, { ...KEEP_IT_ON_FULL_PROMPTS, epochs: 10 }],
};

export const STAND_IN_RECIPES: Readonly<{ "tiny-tuned": DemonstrationRecipe; "tiny-weak": DemonstrationRecipe; "tiny-distilled": DistilledRecipe }> = Object.freeze({
  "tiny-tuned": { plan: "probe", stages: [LEARN_THE_CALL, SETTLE_IT, KEEP_IT_ON_FULL_PROMPTS] },
  "tiny-weak": { plan: "probe", stages: [{ ...LEARN_THE_CALL, epochs: 1, maxSteps: 24 }] },
  "tiny-distilled": DISTILLED,
});

/**
 * The LoRA-tuned stand-in: tuned's base, data and stage shapes, but only a rank-8 adapter trains (every
 * attention and FFN projection; the base, its head included, stays frozen) and the bench applies it with
 * `--lora`. Not a `synthetic:` spec: it is a base plus an adapter, which the bench takes as such. LoRA's rates
 * are 10x full fine-tuning's (its B starts at zero and alpha/rank scales its update; 1e-2 against 1e-3 learned
 * the same sentence in half the epochs, docs/training.md), and the stages are shorter (see docs/training.md for
 * what this recipe reached and on what machine).
 */
export const LORA_STAND_IN = "tiny-lora";
export const LORA_STAND_IN_RECIPE: Readonly<DemonstrationRecipe & { lora: LoraOptions }> = Object.freeze({
  plan: "probe",
  lora: { rank: 8, alpha: 16 },
  stages: [
    { ...LEARN_THE_CALL, epochs: 6, lr: 5e-3, lrEnd: 5e-4 },
    { ...KEEP_IT_ON_FULL_PROMPTS, epochs: 1, lr: 2e-3, lrEnd: 2e-3 },
  ],
});

export interface StandInOptions {
  modelsDir: string;
  /** The bench tasks (the train half makes the data). Default: bench/tasks of the package. */
  tasksDir?: string;
  onProgress?: (p: TrainProgress) => void;
  /** The distilled stand-in's data runs, done / planned. Default: none. */
  onDataRun?: (done: number, planned: number) => void;
}

const PACKAGE_TASKS = fileURLToPath(new URL("../../bench/tasks", import.meta.url));

export const standInFileName = (name: StandInName): string => `synthetic-${name}.gguf`;
/** The sidecar next to a stand-in GGUF: its recipe, and the mark `resolveModel` labels it by. */
export const standInSidecar = (file: string): string => `${file}.stand-in.json`;

export const isStandInName = (s: string): s is StandInName => (STAND_INS as readonly string[]).includes(s);

/**
 * The cache key of a recipe: the recipe itself (a distilled one's data-generation settings included), the
 * training base, the driver's source, the llama.cpp patch and the train ids. A sidecar with another key remakes.
 */
export async function recipeKey(recipe: StandInRecipe, tasksDir: string): Promise<string> {
  const split = await splitTasks(tasksDir);
  const h = createHash("sha256").update(JSON.stringify(recipe)).update(TRAINING_BASE_FILE).update(readFileSync(TRAINER_SOURCE)).update(readFileSync(LLAMA_PATCH));
  for (const d of split.train) h.update(d.slice(d.lastIndexOf(path.sep)));
  return h.digest("hex").slice(0, 16);
}

/** Which stand-in a GGUF file is (from its sidecar), or null. */
export function standInOf(file: string): StandInName | null {
  try {
    const v = JSON.parse(readFileSync(standInSidecar(file), "utf8")) as { name?: string };
    return v.name && isStandInName(v.name) ? v.name : null;
  } catch {
    return null;
  }
}

/** File of the stand-ins' starting point: the tiny synthetic model, seed 0, F32, with its own output head. */
export const TRAINING_BASE_FILE = "synthetic-tiny-f32-untied.gguf";

/**
 * The stand-ins' starting point. llama.cpp's training leaves `token_embd` frozen and the tiny model ties its
 * head to it, so the stand-ins start from the same seeded weights plus a separate `output.weight` it can train.
 */
async function ensureTrainingBase(modelsDir: string): Promise<string> {
  const file = path.join(modelsDir, TRAINING_BASE_FILE);
  if (!existsSync(file)) await writeSyntheticModel({ shape: "tiny", dtype: "f32", seed: 0, untiedOutput: true, out: file });
  return file;
}

/**
 * The stand-in maker `resolveModel` takes (ResolveOptions.standIns): `synthetic:<name>` resolves where training
 * lives, through ensureStandIn.
 */
export const makeStandIn: StandInMaker = (name, opts) => {
  if (!isStandInName(name)) fail("model_not_found", `no trained stand-in "${name}": use ${STAND_INS.map((s) => `synthetic:${s}`).join(", ")}`);
  return ensureStandIn(name, opts);
};

/** The path of a stand-in, training it first when it is missing or its recipe changed (minutes on 2 cores). */
export async function ensureStandIn(name: StandInName, opts: StandInOptions): Promise<string> {
  const file = path.join(opts.modelsDir, standInFileName(name));
  await ensureTrained(name, STAND_IN_RECIPES[name], file, opts);
  return file;
}

/** The LoRA stand-in's file name (an adapter GGUF, applied to TRAINING_BASE_FILE). */
export const loraStandInFileName = (): string => `synthetic-${LORA_STAND_IN}.gguf`;

/** The LoRA stand-in: its base (the F32 training base) and its adapter, trained first when missing or stale. */
export async function ensureLoraStandIn(opts: StandInOptions): Promise<{ base: string; adapter: string }> {
  const adapter = path.join(opts.modelsDir, loraStandInFileName());
  await ensureTrained(LORA_STAND_IN, LORA_STAND_IN_RECIPE, adapter, opts, LORA_STAND_IN_RECIPE.lora);
  return { base: await ensureTrainingBase(opts.modelsDir), adapter };
}

/**
 * Train `recipe` into `file` unless its sidecar names the same recipe key. Each stage starts from the one
 * before: a full fine-tune from its weights, a LoRA one from its adapter (on the same frozen base).
 */
async function ensureTrained(name: string, recipe: StandInRecipe, file: string, opts: StandInOptions, lora?: LoraOptions): Promise<void> {
  const tasksDir = opts.tasksDir ?? PACKAGE_TASKS;
  const key = await recipeKey(recipe, tasksDir);
  const side = await fs.readFile(standInSidecar(file), "utf8").then((t) => JSON.parse(t) as { key?: string }).catch(() => null);
  if (existsSync(file) && side?.key === key) return;
  const base = await ensureTrainingBase(opts.modelsDir);
  const { data, distilled } = await trainingData(recipe, base, tasksDir, opts);
  let prev = base;
  const stages: { contextSize: number; input: Record<string, string>; epochs: FinetuneResult["epochs"]; seconds: number }[] = [];
  for (const [i, stage] of recipe.stages.entries()) {
    const out = i === recipe.stages.length - 1 ? file : `${file}.stage${i + 1}.tmp`;
    const stageNo = `${i + 1}/${recipe.stages.length}`;
    let input: Record<string, string> = {}; // the driver's start line: samples, tokens, trained tokens, windows
    const onProgress = (p: TrainProgress) => {
      if (p.kind === "start") input = p.fields;
      opts.onProgress?.({ ...p, fields: { ...p.fields, stage: stageNo } });
    };
    const from = lora ? { model: base, lora: { ...lora, ...(prev !== base ? { from: prev } : {}) } } : { model: prev };
    const result = await finetune({ ...from, data, out, ...stage, onProgress });
    if (prev !== base) await fs.rm(prev, { force: true }); // the stage before's output, now trained on
    stages.push({ contextSize: stage.contextSize, input, epochs: result.epochs, seconds: result.seconds });
    prev = out;
  }
  const seconds = stages.reduce((t, s) => t + s.seconds, 0);
  const sidecar = { name, label: STAND_IN_LABEL, key, recipe, ...(distilled ? { distilled } : {}), stages, seconds };
  await fs.writeFile(standInSidecar(file), JSON.stringify(sidecar, null, 2) + "\n");
}

/** A recipe's data: the train half's demonstrations, or the base's own constrained runs on the train half. */
async function trainingData(recipe: StandInRecipe, base: string, tasksDir: string, opts: StandInOptions): Promise<{ data: Conversation[]; distilled?: DistillSummary }> {
  const split = await splitTasks(tasksDir);
  const sandbox = await resolveSandbox("bwrap");
  if ("distill" in recipe) {
    const { conversations, summary } = await distilledData({ model: base, tasksDir, split, settings: recipe.distill, sandbox, onRun: opts.onDataRun });
    if (conversations.length === 0) fail("training_failed", `the base's ${summary.runs} constrained runs left no kept turn to train ${standInFileName("tiny-distilled")} on`);
    return { data: conversations, distilled: summary };
  }
  const data = [];
  for (const dir of split.train) data.push(await demonstrate(dir, { sandbox, plan: recipe.plan }));
  return { data };
}
