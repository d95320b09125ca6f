// Owns: the trained stand-ins `synthetic:tiny-tuned` and `synthetic:tiny-weak`: the tiny synthetic model
// fine-tuned on the train half's demonstrations with a fixed recipe and seed, made on first use and cached in
// the models folder with a sidecar that names the recipe (a changed recipe, data or driver remakes them).

import { createHash } from "node:crypto";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { resolveSandbox } from "../harness/os-sandbox.js";
import { writeSyntheticModel } from "../model/synthetic.js";
import { demonstrate, type DemonstrationPlan } from "./demonstrations.js";
import { finetune, type TrainProgress } from "./finetune.js";
import { splitTasks } from "./split.js";
import { TRAINER_SOURCE } from "./trainer-build.js";

export const STAND_INS = ["tiny-tuned", "tiny-weak"] as const;
export type StandInName = (typeof STAND_INS)[number];

/** What reports call these models: neither random weights nor a real Qwen3. */
export const STAND_IN_LABEL = "trained stand-in";

/**
 * The recipes, fixed: same data, seed and steps on every machine. Windows of 256 tokens keep each turn's end
 * and, on the first turn, the system prompt's own `<tool_call>` example: trained on 64-token windows the model
 * wrote the call on a 64-token context but copied `}\n</tool_call>` from that example on the bench's ~650-token
 * prompt. lr 0.01 diverged in its second epoch here; 0.004 falling to 0.0002 settles. `weak` is the same start
 * stopped after 24 optimizer steps (of 240).
 */
export interface StandInRecipe {
  /** Which demonstrations (see DemonstrationOptions.plan). */
  plan: DemonstrationPlan;
  epochs: number;
  lr: number;
  /** The rate falls linearly from `lr` to this over the run. */
  lrEnd: number;
  seed: number;
  contextSize: number;
  maxSteps?: number;
}

export const STAND_IN_RECIPES: Readonly<Record<StandInName, StandInRecipe>> = Object.freeze({
  "tiny-tuned": { plan: "probe", epochs: 6, lr: 4e-3, lrEnd: 2e-4, seed: 0, contextSize: 256 },
  "tiny-weak": { plan: "probe", epochs: 1, lr: 4e-3, lrEnd: 2e-4, seed: 0, contextSize: 256, maxSteps: 24 },
});

export interface StandInOptions {
  modelsDir: string;
  /** The bench tasks (the train half makes the data). Default: bench/tasks of the package. */
  tasksDir?: string;
  onProgress?: (p: TrainProgress) => void;
}

const PACKAGE_TASKS = fileURLToPath(new URL("../../bench/tasks", import.meta.url));

export const standInFileName = (name: StandInName): string => `synthetic-${name}.gguf`;
/** The sidecar next to a stand-in GGUF: its recipe, and the mark `resolveModel` labels it by. */
export const standInSidecar = (file: string): string => `${file}.stand-in.json`;

export const isStandInName = (s: string): s is StandInName => (STAND_INS as readonly string[]).includes(s);

async function recipeKey(name: StandInName, tasksDir: string): Promise<string> {
  const split = await splitTasks(tasksDir);
  const h = createHash("sha256").update(JSON.stringify(STAND_IN_RECIPES[name])).update(TRAINING_BASE_FILE).update(readFileSync(TRAINER_SOURCE));
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

/** The path of a stand-in, training it first when it is missing or its recipe changed (minutes on 2 cores). */
export async function ensureStandIn(name: StandInName, opts: StandInOptions): Promise<string> {
  const tasksDir = opts.tasksDir ?? PACKAGE_TASKS;
  const file = path.join(opts.modelsDir, standInFileName(name));
  const key = await recipeKey(name, tasksDir);
  const side = await fs.readFile(standInSidecar(file), "utf8").then((t) => JSON.parse(t) as { key?: string }).catch(() => null);
  if (existsSync(file) && side?.key === key) return file;
  const split = await splitTasks(tasksDir);
  const sandbox = await resolveSandbox("bwrap");
  const data = [];
  const r = STAND_IN_RECIPES[name];
  for (const dir of split.train) data.push(await demonstrate(dir, { sandbox, plan: r.plan }));
  const base = await ensureTrainingBase(opts.modelsDir);
  const { plan: _plan, ...train } = r;
  const result = await finetune({ model: base, data, out: file, ...train, onProgress: opts.onProgress });
  await fs.writeFile(standInSidecar(file), JSON.stringify({ name, label: STAND_IN_LABEL, key, recipe: r, epochs: result.epochs, seconds: result.seconds }, null, 2) + "\n");
  return file;
}
