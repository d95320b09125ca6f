// Owns: running one task from a model spec (what `qtc agent` calls): resolve the model, run the loop, close.

import type { StandInMaker } from "../model/resolve.js";
import type { GenerationMode } from "../runtime/types.js";
import type { ToolChoice } from "../tools/types.js";
import { runAgent, type AgentOptions } from "./loop.js";
import { createReplayModel, isReplaySpec } from "./replay-model.js";
import type { AgentModel, AgentRun } from "./types.js";

/** How a runtime-backed model is loaded (ignored for replays). */
export interface ModelLoadOptions {
  /** CPU threads. Default: the runtime's (RUNTIME_DEFAULTS.threads). */
  threads?: number;
  /** Tokens the context holds (prompt + all turns). Default: the runtime's (RUNTIME_DEFAULTS.contextSize). */
  contextSize?: number;
  /** Makes the trained stand-ins (`synthetic:tiny-tuned`); `qtc agent` passes training's. Default: none (see ResolveOptions.standIns). */
  standIns?: StandInMaker;
}

/**
 * The model behind a `--model` value: `replay:FILE` plays a recording; anything else (a GGUF path, an `hf:`
 * URI, a registry name, `synthetic:tiny`) is loaded by the runtime, which is imported only then.
 */
export async function resolveAgentModel(spec: string, opts: ModelLoadOptions = {}): Promise<AgentModel> {
  if (isReplaySpec(spec)) return createReplayModel(spec);
  const { createRuntime } = await import("../engines/index.js");
  const rt = await createRuntime({ model: spec, threads: opts.threads, contextSize: opts.contextSize, standIns: opts.standIns });
  return {
    name: rt.modelInfo.name,
    synthetic: rt.modelInfo.synthetic,
    format: rt.format,
    generate: (req) => rt.generate(req),
    close: () => rt.close(),
  };
}

export interface RunTaskOptions extends Omit<AgentOptions, "task" | "model">, ModelLoadOptions {
  /** The task folder. */
  taskDir: string;
  /** A `--model` value (`replay:FILE`, …) or a model already made. */
  model: string | AgentModel;
  mode?: GenerationMode;
  toolChoice?: ToolChoice;
}

/** Resolve the model, run the task once, and close the model (when this function made it). */
export async function runTask(opts: RunTaskOptions): Promise<AgentRun> {
  const { taskDir, model, threads, contextSize, standIns, ...rest } = opts;
  const m = typeof model === "string" ? await resolveAgentModel(model, { threads, contextSize, standIns }) : model;
  try {
    return await runAgent({ ...rest, task: taskDir, model: m });
  } finally {
    if (typeof model === "string") await m.close?.().catch(() => undefined);
  }
}
