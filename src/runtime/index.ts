// Owns: the public surface of the runtime stage.

export type { AnswerCheck, FinishReason, GenerateEvent, GenerateRequest, GenerateResult, GenerateTimings, GenerateUsage, GenerationMode, GrammarUse } from "./types.js";
export { GENERATE_DEFAULTS, RUNTIME_DEFAULTS } from "./defaults.js";
export { createLocalRuntime, type ModelInfo, type Runtime, type RuntimeLoad, type RuntimeOptions } from "./runtime.js";
export type { DecodePass } from "./decode-passes.js";
export type { GenerateOutput } from "./result.js";
export { resolveToolChoice } from "./request.js";
export { defineTools, type DefinedTools, type ToolHandler, type ToolHandlers, type ToolRunResult } from "./define-tools.js";
