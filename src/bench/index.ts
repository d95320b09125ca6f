// Owns: the public surface of the bench stage (the CLI and the library import from here).

export { BENCH_DEFAULTS, BENCH_FILES, SYNTHETIC_NOTE } from "./defaults.js";
export { chartOption, chartWidth, renderChartSvg, rowCategory, type ChartOptions } from "./chart.js";
export { computeRows, decodeRate, mergeCounts, ratio, rowFromRuns, withSpeedRatios, type RowIdentity, type RowSlot } from "./metrics.js";
export { openBenchModel, type BenchLoadSettings, type BenchModelHandle, type BenchModelOpener } from "./models.js";
export { defaultToolChoice, labelModels, planRuns, rowSlots, runKey, seedList, selectModes, selectTasks, type ModeFlags, type TaskSelection } from "./plan.js";
export { createReferenceRun, type ReferenceRunOptions } from "./reference-model.js";
export { ForcedCallQwenChatWrapper, referenceChatWrapper, referenceFunctions } from "./reference-engine.js";
export { configLine, renderMarkdown, renderTable } from "./render-text.js";
export { buildPlan, planConflicts, runBench, type DraftPlan, type BenchEvent, type BenchOptions, type BenchOutcome } from "./run-bench.js";
export { appendRecord, benchFiles, isBenchRecord, readRecords, readReportConfig, writeReport, writeReportJson } from "./store.js";
export {
  BENCH_MODES,
  REFERENCE_KINDS,
  type BenchConfig,
  type BenchMode,
  type BenchModelInfo,
  type BenchModelSpec,
  type BenchPlanConfig,
  type BenchReport,
  type BenchRow,
  type BenchRunRecord,
  type BenchRunTag,
  type PlannedRun,
  type ReferenceKind,
} from "./types.js";
