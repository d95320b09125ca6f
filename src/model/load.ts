// Owns: the one place that starts llama.cpp (creates the `Llama`), loads a GGUF and creates its context, with
// threads and context size always set explicitly. Callers own the returned objects and dispose them.

import { existsSync } from "node:fs";
import type { BatchingOptions, Llama, LlamaContext, LlamaLogLevel, LlamaModel } from "node-llama-cpp";
import { defaultThreads } from "../defaults.js";
import { fail } from "../errors.js";
import { checkGgufFile } from "./gguf-check.js";
import { type ResolveOptions, type ResolvedModel, resolveModel } from "./resolve.js";

export const GPU_CHOICES = ["auto", "cpu", "cuda", "metal", "vulkan"] as const;
export type GpuChoice = (typeof GPU_CHOICES)[number];

/**
 * Which llama.cpp binary to start: `native` is node-llama-cpp built from its bundled source on this machine
 * (`npm run llama:native`, -march=native), `prebuilt` the generic binary shipped with it, `auto` the native
 * build when one is present, else the prebuilt one.
 */
export const LLAMA_BINARIES = ["auto", "native", "prebuilt"] as const;
export type LlamaBinary = (typeof LLAMA_BINARIES)[number];
/** Environment variable that picks the binary when the caller does not (the CLI, the benches). */
export const LLAMA_BINARY_ENV = "QTC_LLAMA_BINARY";

export const LOG_LEVELS = ["disabled", "fatal", "error", "warn", "info", "log", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Defaults for starting llama.cpp, loading a model and creating its context. The CLI help reads them here. */
export const LOAD_DEFAULTS = {
  /** Compute backend. "auto" picks Metal, CUDA or Vulkan when a working prebuilt binary exists, else the CPU. Default: "auto". */
  gpu: "auto" as GpuChoice,
  /**
   * CPU threads for evaluation. Default: defaultThreads(): the cores not already busy when qtc starts (by the load
   * average), 1 to 4; spinning threads on busy cores cost far more than an idle core.
   */
  threads: defaultThreads(),
  /**
   * Context size in tokens. Default: 4096 (Qwen3's trained 40,960 would allocate a 4.7 GB KV cache for 0.6B;
   * an agent turn plus tools fits in 4096).
   */
  contextSize: 4096,
  /** Parallel sequences in the context (one per concurrent request). Default: 1. */
  sequences: 1,
  /** Minimum llama.cpp log level that is printed. Default: "error" (hides load-time warnings about the vocabulary). */
  logLevel: "error" as LogLevel,
  /** llama.cpp binary. Default: `$QTC_LLAMA_BINARY`, else "auto" (the native build when present). */
  binary: "auto" as LlamaBinary,
  /** Layers offloaded to the GPU. Default: "auto" (node-llama-cpp fits as many as memory allows; none on CPU). */
  gpuLayers: "auto" as "auto" | "max" | number,
} as const;

export interface CreateLlamaOptions {
  /** Default: LOAD_DEFAULTS.gpu ("auto"). */
  gpu?: GpuChoice;
  /** Default: LOAD_DEFAULTS.logLevel ("error"). */
  logLevel?: LogLevel;
  /** Default: `$QTC_LLAMA_BINARY`, else LOAD_DEFAULTS.binary ("auto"). */
  binary?: LlamaBinary;
}

/**
 * node-llama-cpp looks for a local build (its `source download` output) before the prebuilt binaries, in a
 * folder named after the build options; a custom CMake option nobody builds with names a folder that never
 * exists, which leaves only the prebuilt binary.
 */
const PREBUILT_ONLY = { QTC_PREBUILT_ONLY: "1" };

function binaryChoice(opts: CreateLlamaOptions): LlamaBinary {
  const choice = opts.binary ?? (process.env[LLAMA_BINARY_ENV] || LOAD_DEFAULTS.binary);
  if (!(LLAMA_BINARIES as readonly string[]).includes(choice)) {
    fail("invalid_option", `${LLAMA_BINARY_ENV} must be one of ${LLAMA_BINARIES.join(", ")}, got "${choice}"`);
  }
  return choice as LlamaBinary;
}

/**
 * Start llama.cpp with an existing binary (the native build when present and allowed, else the prebuilt one),
 * never building from source or downloading anything (`build: "never"`), so it works offline and on CPU-only
 * machines. Throws QtcException `model_load_failed` (exit 1) when no binary for the requested backend works,
 * or when `native` is asked for and there is no native build for it.
 */
export async function createLlama(opts: CreateLlamaOptions = {}): Promise<Llama> {
  const gpu = opts.gpu ?? LOAD_DEFAULTS.gpu;
  const binary = binaryChoice(opts);
  const { getLlama } = await import("node-llama-cpp"); // loaded on first use: importing it costs about a second
  let llama: Llama;
  try {
    llama = await getLlama({
      gpu: gpu === "cpu" ? false : gpu,
      build: "never",
      skipDownload: true,
      progressLogs: false,
      logLevel: (opts.logLevel ?? LOAD_DEFAULTS.logLevel) as LlamaLogLevel,
      maxThreads: 0, // contexts get exactly the `threads` they ask for
      ...(binary === "prebuilt" ? { cmakeOptions: PREBUILT_ONLY } : {}),
    });
  } catch (e) {
    const hint = gpu === "auto" || gpu === "cpu" ? "" : " Try --gpu auto or --gpu cpu.";
    fail("model_load_failed", `could not start llama.cpp with --gpu ${gpu}: ${firstLine(e)}.${hint}`, { exitCode: 1 });
  }
  if (binary === "native" && llama.buildType !== "localBuild") {
    await llama.dispose();
    fail("model_load_failed", `no native llama.cpp build for --gpu ${gpu}: run \`npm run llama:native\` first, or set ${LLAMA_BINARY_ENV}=auto`, { exitCode: 1 });
  }
  return llama;
}

export interface LoadModelOptions {
  /** Path of the GGUF file. */
  path: string;
  /** Default: LOAD_DEFAULTS.gpuLayers ("auto"). */
  gpuLayers?: "auto" | "max" | number;
  /** Cancels loading. Default: none. */
  signal?: AbortSignal;
}

/**
 * Load a GGUF. Throws `model_not_found` (exit 2) when the file is missing, `model_load_failed` with exit 2 when
 * it is not a sound GGUF (checked here first: node-llama-cpp's reader trusts the header's counts), and
 * `model_load_failed` (exit 1) when llama.cpp fails anyway. llama.cpp's log lines during the load are held
 * back: on failure the last one joins qtc's one-line error, on success they are printed as usual.
 */
export async function loadModel(llama: Llama, opts: LoadModelOptions): Promise<LlamaModel> {
  if (!existsSync(opts.path)) fail("model_not_found", `model file not found: ${opts.path}`, { path: opts.path });
  checkGgufFile(opts.path);
  const held = holdLogs(llama);
  try {
    const model = await llama.loadModel({ modelPath: opts.path, gpuLayers: opts.gpuLayers ?? LOAD_DEFAULTS.gpuLayers, loadSignal: opts.signal });
    held.release();
    return model;
  } catch (e) {
    const why = (await held.failed()) ?? firstLine(e);
    fail("model_load_failed", `llama.cpp could not load ${opts.path}: ${why}`, { path: opts.path, exitCode: 1 });
  }
}

/** How long a failed load waits for llama.cpp's log lines, which arrive on the event loop after the rejection. */
const LOG_SETTLE_MS = 30;
/** How long lines of a failed load are still swallowed afterwards. */
const LOG_SWALLOW_MS = 500;

/**
 * llama.cpp's log, held back while a load runs. `release()` restores the logger and prints what was held;
 * `failed()` waits for late lines, returns the most telling one for qtc's error, and drops the rest.
 */
function holdLogs(llama: Llama): { release(): void; failed(): Promise<string | undefined> } {
  const logger = llama.logger;
  const lines: [LlamaLogLevel, string][] = [];
  llama.logger = (level, message) => void lines.push([level, message]);
  return {
    release() {
      llama.logger = logger;
      for (const [level, message] of lines) logger(level, message);
    },
    async failed() {
      await new Promise((resolve) => setTimeout(resolve, LOG_SETTLE_MS));
      setTimeout(() => (llama.logger = logger), LOG_SWALLOW_MS).unref();
      const texts = lines.map(([, message]) => message);
      const telling = texts.find((t) => /error/i.test(t)) ?? texts[texts.length - 1];
      // "llama_model_load: error loading model: error loading model hyperparameters: key not found…" → the cause.
      return telling === undefined ? undefined : firstLine(new Error(telling.replace(/^(?:\w+: |error loading model: )+/, "")));
    },
  };
}

export interface CreateContextOptions {
  /** Default: LOAD_DEFAULTS.contextSize (4096). */
  contextSize?: number;
  /** Default: LOAD_DEFAULTS.threads. */
  threads?: number;
  /** Default: LOAD_DEFAULTS.sequences (1). */
  sequences?: number;
  /** A LoRA adapter GGUF that llama.cpp applies on top of the model. Default: none. */
  lora?: string;
  /** How queued evaluations are packed into model passes. Default: node-llama-cpp's ("maximumParallelism"). */
  batching?: BatchingOptions;
}

/**
 * Create a context with an explicit size and thread count. Throws `model_load_failed` (exit 2) for a LoRA
 * adapter that is not a sound GGUF, `model_load_failed` (exit 1) otherwise, e.g. out of memory.
 */
export async function createContext(model: LlamaModel, opts: CreateContextOptions = {}): Promise<LlamaContext> {
  const contextSize = opts.contextSize ?? LOAD_DEFAULTS.contextSize;
  const threads = opts.threads ?? LOAD_DEFAULTS.threads;
  if (opts.lora) checkGgufFile(opts.lora, "LoRA adapter");
  try {
    return await model.createContext({
      contextSize,
      threads,
      sequences: opts.sequences ?? LOAD_DEFAULTS.sequences,
      ...(opts.batching ? { batching: opts.batching } : {}),
      ...(opts.lora ? { lora: { adapters: [{ filePath: opts.lora }] } } : {}),
    });
  } catch (e) {
    const what = opts.lora ? ` with LoRA adapter ${opts.lora}` : "";
    fail("model_load_failed", `could not create a ${contextSize}-token context${what}: ${firstLine(e)}`, { exitCode: 1 });
  }
}

export interface OpenModelOptions extends CreateLlamaOptions, Omit<LoadModelOptions, "path">, CreateContextOptions, ResolveOptions {}

/** A started llama.cpp with one model and one context. `dispose()` releases all three. */
export interface OpenedModel {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  resolved: ResolvedModel;
  /** The settings actually used, for reports. */
  settings: {
    gpu: string | false;
    /** Which llama.cpp binary runs: "native" (built here from source), "prebuilt", or "remote" (an upstream engine generates). */
    binary: "native" | "prebuilt" | "remote";
    threads: number;
    contextSize: number;
    sequences: number;
    lora?: string;
  };
  dispose(): Promise<void>;
}

/** Resolve a model spec (see resolveModel), start llama.cpp, load the model and create a context. */
export async function openModel(spec: string | undefined, opts: OpenModelOptions = {}): Promise<OpenedModel> {
  const resolved = await resolveModel(spec, opts);
  const llama = await createLlama(opts);
  let model: LlamaModel | undefined;
  try {
    model = await loadModel(llama, { path: resolved.path, gpuLayers: opts.gpuLayers, signal: opts.signal });
    const context = await createContext(model, opts);
    const loaded = model;
    return {
      llama,
      model: loaded,
      context,
      resolved,
      settings: {
        gpu: llama.gpu,
        binary: llama.buildType === "localBuild" ? "native" : "prebuilt",
        threads: context.currentThreads,
        contextSize: context.contextSize,
        sequences: context.totalSequences,
        ...(opts.lora ? { lora: opts.lora } : {}),
      },
      async dispose() {
        await context.dispose();
        await loaded.dispose();
        await llama.dispose();
      },
    };
  } catch (e) {
    await model?.dispose();
    await llama.dispose();
    throw e;
  }
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0]!.trim();
}
