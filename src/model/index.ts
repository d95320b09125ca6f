// Owns: the public surface of the model layer (synthetic GGUFs, registry, resolution, download, loading, the vocabulary the engine reads).

export { DTYPES, type Dtype } from "./quantize.js";
export { SHAPES, QWEN3_SHAPES, type ShapeName, type Qwen3Shape } from "./qwen3-shapes.js";
export { readQwen3ChatTemplate, readQwen3Vocab, type Qwen3Vocab } from "./qwen3-vocab.js";
export { MODELS_DIR_ENV, findModelFile, legacyModelsDir, modelsDir, packageRoot } from "./paths.js";
export {
  SYNTHETIC_DEFAULTS,
  ensureSyntheticModel,
  isSyntheticMetadata,
  isSyntheticModel,
  readSyntheticInfo,
  syntheticFileName,
  syntheticModelName,
  writeSyntheticModel,
  type EnsureSyntheticOptions,
  type SyntheticModelInfo,
  type SyntheticModelOptions,
  type SyntheticWriteResult,
} from "./synthetic.js";
export { DEFAULT_MODEL, MODEL_REGISTRY, findRegistryModel, type RegistryModel } from "./registry.js";
export { HF_ENDPOINT_ENV, PULL_DEFAULTS, pullModel, type PullOptions, type PullResult } from "./download.js";
export { MODEL_SPEC_HELP, resolveModel, type ModelSource, type ResolveOptions, type ResolvedModel, type StandInMaker } from "./resolve.js";
export {
  GPU_CHOICES,
  LOAD_DEFAULTS,
  LOG_LEVELS,
  createContext,
  createLlama,
  loadModel,
  openModel,
  type CreateContextOptions,
  type CreateLlamaOptions,
  type GpuChoice,
  type LoadModelOptions,
  type LogLevel,
  type OpenModelOptions,
  type OpenedModel,
} from "./load.js";
export { computeTokenTables, readTokenBytes, readVocabulary, type ModelVocabulary } from "./vocabulary.js";
