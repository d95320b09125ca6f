// Owns: the runtime's defaults (one object for the runtime, one for each request); docs and the CLI read them here.

import { DEFAULT_MODEL, LOAD_DEFAULTS } from "../model/index.js";
import type { GenerationMode } from "./types.js";
import { SHARED_DEFAULTS } from "../defaults.js";
import { REPEAT_DEFAULTS } from "./repeat-guard.js";

/** Defaults of `createRuntime(…)`. */
export const RUNTIME_DEFAULTS = Object.freeze({
  /** Model: a GGUF path, an `hf:` URI, a registry name, or `synthetic:tiny` / `synthetic:0.6b`. Default: "qwen3-0.6b". */
  model: DEFAULT_MODEL,
  /** Compute backend: "auto" picks Metal, CUDA or Vulkan when a working binary exists, else the CPU. Default: "auto". */
  gpu: LOAD_DEFAULTS.gpu,
  /** CPU threads for evaluation. Default: the cores not already busy at start (defaultThreads in src/defaults.ts), 1 to 4. */
  threads: LOAD_DEFAULTS.threads,
  /** Tokens each sequence holds (prompt + completion). Default: 4096 (Qwen3's full 40,960 costs GBs of KV cache). */
  contextSize: LOAD_DEFAULTS.contextSize,
  /** Sequences in the context = requests served at once; more requests wait for a free one. Default: 1. */
  sequences: 1,
});

/** Defaults of each `generate(…)` / `stream(…)` request (see GenerateRequest for the meaning of each). */
export const GENERATE_DEFAULTS = Object.freeze({
  /** Default: "auto". */
  toolChoice: "auto" as const,
  /** Default: "constrained". */
  mode: "constrained" as GenerationMode,
  /** Default: true. */
  parallel: true,
  /** Default: 512. */
  maxTokens: SHARED_DEFAULTS.maxTokens,
  /** Default: 0.7. */
  temperature: SHARED_DEFAULTS.temperature,
  /** Default: 0.8. */
  topP: SHARED_DEFAULTS.topP,
  /** Default: 20. */
  topK: SHARED_DEFAULTS.topK,
  /** Default: false. */
  thinking: false,
  /** Share of maxTokens the `<think>` phase may use when thinkingBudget is not given. Default: 0.5. */
  thinkingShare: 0.5,
  /** Default: true. */
  jumpForward: true,
  /** Repeats of a 1- to 3-token span, back to back, that stop a loop (phrases: a third); false turns the guard off. Default: 72. */
  repeatGuard: REPEAT_DEFAULTS.repeats as number | false,
  /** Most calls one turn may make (the grammar's bound as well). Default: 8. */
  maxCalls: SHARED_DEFAULTS.maxCalls,
});
