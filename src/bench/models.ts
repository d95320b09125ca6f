// Owns: the models a bench drives, one handle per `--model` entry: a replay (fresh per run), or a GGUF served
// by qtc's runtime for the unconstrained and constrained rows and by node-llama-cpp's chat session for the
// reference row. A handle resolves (downloads, writes) its model up front and loads it on first use.

import { existsSync } from "node:fs";
import path from "node:path";
import type { LlamaContextSequence } from "node-llama-cpp";
import { fail } from "../errors.js";
import { createReplayModel, isReplaySpec } from "../harness/replay-model.js";
import type { AgentModel } from "../harness/types.js";
import { createLlama, type GpuChoice, loadModel } from "../model/load.js";
import { resolveModel, type ResolvedModel } from "../model/resolve.js";
import { makeStandIn } from "../training/stand-ins.js";
import type { Runtime, RuntimeOptions } from "../runtime/runtime.js";
import { createEngineRuntime, createRuntime, parseEngineSpec, type EngineSpec } from "../engines/index.js";
import { createReferenceContext } from "./reference-engine.js";
import { createReferenceRun } from "./reference-model.js";
import type { BenchMode, BenchModelInfo, BenchModelSpec } from "./types.js";

/** Settings every model of a bench is loaded with. */
export interface BenchLoadSettings {
  threads: number;
  contextSize: number;
  gpu: GpuChoice;
  toolChoice: "auto" | "required";
  thinking: boolean;
  /** Models directory. Default: modelsDir(). */
  modelsDir?: string;
}

/** A model of the bench: what the report says about it, and the agent model for each run. */
export interface BenchModelHandle {
  info: Omit<BenchModelInfo, "label">;
  /**
   * The model one run uses in `mode` (loads the model on first use). Call `close()` on the returned model
   * after the run when it has one (per-run models: replays, reference sessions).
   */
  forRun(mode: BenchMode, label: string): Promise<AgentModel>;
  /**
   * Fail now, before any run, when this model cannot serve these modes (e.g. a LoRA adapter the runtime
   * cannot apply). Optional.
   */
  check?(modes: readonly BenchMode[]): Promise<void>;
  /** Free everything this handle loaded. */
  close(): Promise<void>;
}

/** Opens a handle; the bench takes one of these so tests can swap the models. */
export type BenchModelOpener = (spec: BenchModelSpec, settings: BenchLoadSettings) => Promise<BenchModelHandle>;

/** The default opener: replays, and GGUFs (files, hf:, registry names, synthetic:*), resolved now. */
export const openBenchModel: BenchModelOpener = async (spec, settings) => {
  if (isReplaySpec(spec.spec)) return openReplay(spec);
  const engine = parseEngineSpec(spec.spec);
  if (engine) return openEngine(spec, engine);
  if (spec.lora !== null && !existsSync(spec.lora)) fail("file_not_found", `--lora ${spec.lora}: no such file`, { path: spec.lora });
  const resolved = await resolveModel(spec.spec, { modelsDir: settings.modelsDir, standIns: makeStandIn });
  return new GgufHandle(spec, resolved, settings);
};

function openReplay(spec: BenchModelSpec): BenchModelHandle {
  if (spec.lora !== null) fail("invalid_option", `--lora applies to a GGUF model, not to ${spec.spec}`);
  // Load once now so a bad file fails before any run.
  createReplayModel(spec.spec);
  const name = `replay:${path.basename(spec.spec.slice("replay:".length))}`;
  return {
    info: { ...spec, name, synthetic: true, source: "replay" },
    async forRun(mode) {
      if (mode === "reference") fail("invalid_option", `${spec.spec} is a replay: it has no reference row`);
      return createReplayModel(spec.spec, { name });
    },
    async close() {},
  };
}

/**
 * A remote engine (`llama-server:URL`, `openai:URL`): qtc's prompt, grammar and parser, generation upstream. Its
 * name says the engine, so its rows stand beside the local engine's in one report. It has no reference row.
 */
async function openEngine(spec: BenchModelSpec, engine: EngineSpec): Promise<BenchModelHandle> {
  if (spec.lora !== null) fail("invalid_option", `--lora applies to a GGUF model, not to ${spec.spec}`);
  const rt = await createEngineRuntime(engine);
  return {
    info: { ...spec, name: `${engine.kind}-${path.basename(rt.modelInfo.path, ".gguf") || "upstream"}`, synthetic: rt.modelInfo.synthetic, source: engine.kind },
    async check(modes) {
      if (modes.includes("reference")) fail("invalid_option", `${spec.spec} is a remote engine: it has no reference row (drop --reference or this model)`);
    },
    async forRun(_mode, label) {
      return { name: label, synthetic: rt.modelInfo.synthetic, format: rt.format, generate: (req) => rt.generate(req) };
    },
    close: () => rt.close(),
  };
}

/** What the reference row runs on: one loaded model with a one-sequence context. */
interface ReferenceEngine {
  sequence: LlamaContextSequence;
  dispose(): Promise<void>;
}

/** A GGUF: the runtime for unconstrained/constrained runs, a node-llama-cpp context for reference runs. */
class GgufHandle implements BenchModelHandle {
  readonly info: Omit<BenchModelInfo, "label">;
  private runtime: Promise<Runtime> | null = null;
  private reference: Promise<ReferenceEngine> | null = null;

  constructor(
    spec: BenchModelSpec,
    private readonly resolved: ResolvedModel,
    private readonly settings: BenchLoadSettings,
  ) {
    this.info = { ...spec, name: resolved.name, synthetic: resolved.synthetic, source: resolved.source };
  }

  async check(modes: readonly BenchMode[]): Promise<void> {
    // Loading the runtime early costs nothing (it is kept for the runs) and surfaces an adapter it cannot apply.
    if (this.info.lora && modes.some((m) => m !== "reference")) await (this.runtime ??= this.openRuntime());
  }

  async forRun(mode: BenchMode, label: string): Promise<AgentModel> {
    if (mode === "reference") {
      const ref = await (this.reference ??= this.openReference());
      return createReferenceRun({
        name: label,
        synthetic: this.info.synthetic,
        sequence: ref.sequence,
        toolChoice: this.settings.toolChoice,
        thinking: this.settings.thinking,
      });
    }
    const rt = await (this.runtime ??= this.openRuntime());
    return { name: label, synthetic: this.info.synthetic, format: rt.format, generate: (req) => rt.generate(req) };
  }

  private async openRuntime(): Promise<Runtime> {
    const options: RuntimeOptions = {
      model: this.resolved.path,
      gpu: this.settings.gpu,
      threads: this.settings.threads,
      contextSize: this.settings.contextSize,
      sequences: 1,
      modelsDir: this.settings.modelsDir,
      measureProbabilityRemoved: true,
      ...(this.info.lora ? { lora: this.info.lora } : {}),
    };
    return createRuntime(options);
  }

  private async openReference(): Promise<ReferenceEngine> {
    const llama = await createLlama({ gpu: this.settings.gpu });
    try {
      const model = await loadModel(llama, { path: this.resolved.path });
      const context = await createReferenceContext(model, { ...this.settings, lora: this.info.lora }).catch(async (e: unknown) => {
        await model.dispose();
        throw e;
      });
      return {
        // One sequence, reused run after run (each run clears its history first).
        sequence: context.getSequence(),
        async dispose() {
          await context.dispose();
          await model.dispose();
          await llama.dispose();
        },
      };
    } catch (e) {
      await llama.dispose();
      throw e;
    }
  }

  async close(): Promise<void> {
    const [rt, ref] = [this.runtime, this.reference];
    this.runtime = null;
    this.reference = null;
    await (await ref?.catch(() => null))?.dispose();
    await (await rt?.catch(() => null))?.close();
  }
}
