// Owns: the entry point of `npm run bench:model-fixes`: builds the trainer, makes the stand-ins, runs the
// comparison and prints the table (flags: --out DIR, --train to add the train half,
// --seeds N, --turns N, --max-tokens N, --policies a,b, --bfcl-limit N, --bfcl-data DIR, --no-bfcl,
// --modes unconstrained,constrained, --no-tasks for BFCL's rows only, --models a,b to measure only some of MODEL_FIXES_MODELS, --no-lora to leave out the LoRA stand-in,
// --distilled to add the grammar-distilled stand-in to the default models).

import path from "node:path";
import { QtcException } from "../dist/index.js";
import { CALL_POLICIES, type CallPolicy } from "./lib/internals.js";
import { MODEL_FIXES_DEFAULT_MODELS, MODEL_FIXES_MODELS, runModelFixes, renderFixesMarkdown, type FixMode } from "./lib/model-fixes.js";
import { readBenchFlags } from "./lib/script-args.js";

const flags = readBenchFlags("bench:model-fixes", {
  out: { type: "string" },
  train: { type: "boolean" },
  seeds: { type: "string" },
  turns: { type: "string" },
  "max-tokens": { type: "string" },
  policies: { type: "string" },
  models: { type: "string" },
  modes: { type: "string" },
  distilled: { type: "boolean" },
  "no-lora": { type: "boolean" },
  "no-tasks": { type: "boolean" },
  "no-bfcl": { type: "boolean" },
  "bfcl-limit": { type: "string" },
  "bfcl-data": { type: "string" },
});
/** A bad flag value is a one-line error and exit 2, never a stack trace. */
function bad(message: string): never {
  process.stderr.write(`bench:model-fixes: ${message}\n`);
  process.exit(2);
}
/** An operation that failed on the user's setup (no llama.cpp build, a model it cannot train) is its message, not a stack. */
function failed(error: unknown): never {
  if (!(error instanceof QtcException)) throw error;
  process.stderr.write(`\nbench:model-fixes: ${error.message}\n`);
  process.exit(error.exitCode);
}
function positive(name: "seeds" | "turns" | "max-tokens" | "bfcl-limit"): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : bad(`--${name} takes a positive integer, got ${JSON.stringify(v)}`);
}
const policies = flags.policies?.split(",");
const unknown = policies?.filter((p) => !(CALL_POLICIES as readonly string[]).includes(p));
if (unknown?.length) bad(`unknown call policy ${unknown.join(", ")}; choose from ${CALL_POLICIES.join(", ")}`);
/**
 * --models narrows the rows (and the training); --distilled adds the distilled stand-in (opt-in: see
 * MODEL_FIXES_DEFAULT_MODELS); --no-lora drops the LoRA stand-in from whatever is left.
 */
function modelsToRun(): string[] {
  const asked = flags.models?.split(",") ?? [...MODEL_FIXES_DEFAULT_MODELS];
  if (flags.distilled && !asked.includes("synthetic:tiny-distilled")) asked.push("synthetic:tiny-distilled");
  const unknownModels = asked.filter((m) => !(MODEL_FIXES_MODELS as readonly string[]).includes(m));
  if (unknownModels.length) bad(`unknown model ${unknownModels.join(", ")}; choose from ${MODEL_FIXES_MODELS.join(", ")}`);
  return flags["no-lora"] ? asked.filter((m) => m !== "synthetic:tiny-lora") : asked;
}
function modesToRun(): FixMode[] | undefined {
  const modes = flags.modes?.split(",");
  const unknownModes = modes?.filter((m) => m !== "unconstrained" && m !== "constrained");
  if (unknownModes?.length) bad(`unknown mode ${unknownModes.join(", ")}; choose from unconstrained, constrained`);
  return modes as FixMode[] | undefined;
}
const out = path.resolve(flags.out ?? path.join("bench", "results", `model-fixes-${new Date().toISOString().replace(/[:.]/g, "-")}`));
const report = await runModelFixes({
  out,
  halves: flags.train ? ["test", "train"] : ["test"],
  seeds: positive("seeds"),
  maxTurns: positive("turns"),
  maxTokens: positive("max-tokens"),
  policies: policies as CallPolicy[] | undefined,
  models: modelsToRun(),
  modes: modesToRun(),
  tasks: !flags["no-tasks"],
  bfcl: flags["no-bfcl"] ? false : { limit: positive("bfcl-limit") ?? 10, dataDir: flags["bfcl-data"] },
  onEvent: (e) => {
    // One line per epoch: the stand-ins take minutes to train on 2 cores.
    if (e.type === "train" && e.progress.kind === "epoch") {
      const f = e.progress.fields;
      const stage = f.stage ? `stage ${f.stage}, ` : "";
      process.stderr.write(`training ${e.name}: ${stage}epoch ${f.epoch} loss ${f.loss} accuracy ${f.acc} (${f.seconds} s, ETA ${f.eta_s} s)\n`);
    }
    if (e.type === "data-run") process.stderr.write(`\r${e.name} data: ${e.done}/${e.planned} constrained runs of the base${e.done === e.planned ? "\n" : ""}`);
    if (e.type === "stand-in") process.stderr.write(`stand-in ${e.name} ready in ${(e.ms / 1000).toFixed(0)} s\n`);
    if (e.type === "run") process.stderr.write(`\r${e.done}/${e.planned} runs`);
  },
}).catch(failed);
process.stdout.write(`\n${renderFixesMarkdown(report)}\nwrote ${out}\n`);
