// Owns: the public surface of the training stage (the CLI and the bench import from here).

export { demonstrate, type DemonstrationOptions } from "./demonstrations.js";
export { DATASET_DEFAULTS, DATASET_FILES, makeDataset, type DatasetOptions, type DatasetSummary } from "./export.js";
export { conversationsFromRuns, isKeptTurn, type TranscriptSelection, type TranscriptYield } from "./from-transcripts.js";
export { renderSamples } from "./render-samples.js";
export { halfOf, splitTaskIds, splitTasks, type TaskHalf, type TaskSplit } from "./split.js";
export type { Conversation, ConversationSource, RenderedSample, TrainingPiece } from "./types.js";
export { FINETUNE_DEFAULTS, finetune, parseProgressFields, type FinetuneOptions, type FinetuneResult, type TrainProgress } from "./finetune.js";
export { buildTrainer, TRAINER_BINARY, TRAINER_SOURCE, type TrainerBuildOptions } from "./trainer-build.js";
export { encodeTrainerInput, readConversations, writeTrainerInput } from "./trainer-input.js";
export { DISTILLED_STAND_IN, ensureStandIn, isStandInName, makeStandIn, recipeKey, standInFileName, standInOf, standInSidecar, STAND_IN_LABEL, STAND_IN_RECIPES, STAND_INS, type DemonstrationRecipe, type DistilledRecipe, type StandInName, type StandInOptions, type StandInRecipe } from "./stand-ins.js";
export { distilledData, planDistillRuns, type DistillDataOptions, type DistillRun, type DistillSettings, type DistillSummary } from "./distill.js";
