// Owns: the harness's data shapes: the model interface the loop drives, bench tasks, tool outcomes, and the
// run record (which is also the transcript line).

import type { FormatId } from "../formats/types.js";
import type { CallErrorCode } from "../errors.js";
import type { GenerateRequest, GenerateResult, GenerationMode, FinishReason } from "../runtime/types.js";
import type { ToolChoice } from "../tools/types.js";

/** What the agent loop drives: a runtime over a real model, or a replay of recorded outputs. */
export interface AgentModel {
  /** Shown in summaries and transcripts, e.g. `synthetic:tiny` or `replay:run.jsonl`. */
  name: string;
  /** True when the model has random weights (or is a replay): its figures test qtc, not model quality. */
  synthetic: boolean;
  /**
   * The tool-call format its requests use (a runtime's, from the model's chat template); call policies read it,
   * e.g. `open-bias` biases this format's open tag. Default: DEFAULT_FORMAT (hermes), e.g. for a replay.
   */
  format?: FormatId;
  generate(req: GenerateRequest): Promise<GenerateResult>;
  close?(): Promise<void>;
}

/** One bench task, read from `bench/tasks/<id>/task.json`. */
export interface BenchTask {
  /** Equals the folder name. */
  id: string;
  /** One line: what the model is asked to do. */
  prompt: string;
  tags: string[];
  /** Absolute path of the task folder. */
  dir: string;
}

/** The 5 harness tools. */
export const HARNESS_TOOL_NAMES = ["read_file", "list_files", "grep", "write_file", "run_tests"] as const;
export type HarnessToolName = (typeof HARNESS_TOOL_NAMES)[number];

/** How one tool call (or one rejected block) ended. Stable: tests and reports key on these. */
export const TOOL_OUTCOME_CODES = [
  /** The tool did what was asked. */
  "ok",
  /** The tool worked but a cap (bytes read, files listed, matches, output) cut its result; the text says so. */
  "capped",
  /** run_tests ran and the suite failed (the output says why). */
  "tests_failed",
  /** run_tests was stopped at its time limit (the whole process group is killed). */
  "timeout",
  /** An absolute path (`/etc/passwd`, `C:\…`, `~/…`) was refused. */
  "absolute_path",
  /** A path with a `..` segment was refused. */
  "parent_path",
  /** The path resolves (through a symlink) to a place outside the workspace, or is a broken symlink. */
  "outside_workspace",
  /** Empty path, NUL byte, or another malformed path. */
  "invalid_path",
  /** Nothing at that path. */
  "not_found",
  /** A folder where a file was needed. */
  "not_a_file",
  /** A file where a folder was needed. */
  "not_a_directory",
  /** A write larger than the per-write cap, or past the run's total write budget. Nothing was written. */
  "too_large",
  /** A grep pattern the linear-time engine cannot compile. */
  "invalid_regex",
  /** An argument missing or not a string (the parser normally prevents this). */
  "invalid_arguments",
  /** A tool name that is not one of the 5. */
  "unknown_tool",
  /** The block was rejected by the post-parser; the result is the parser's message. */
  "rejected_call",
  /** The file system or the test process failed in an unexpected way; the text says how. */
  "io_error",
] as const;
export type ToolOutcomeCode = (typeof TOOL_OUTCOME_CODES)[number];

/** A tool's result: `text` goes back to the model as-is; `code` is for tests and reports. */
export interface ToolOutcome {
  code: ToolOutcomeCode;
  text: string;
}

export type RunStatus = "answered" | "turn_limit" | "error";

/** One tool result as kept in the transcript. */
export interface ToolResultRecord {
  /** The call id, or null for a rejected block. */
  callId: string | null;
  name: string | null;
  code: ToolOutcomeCode;
  /** The parser's reason for a rejected block. */
  reason?: CallErrorCode;
  /** The text sent to the model, truncated for the transcript when large. */
  content: string;
  /** Length of the full text sent to the model (characters). */
  chars: number;
  ms: number;
}

/** One turn of a run. */
export interface TurnRecord {
  index: number;
  /** The exact text the model produced (special tags included); the replay model plays these back. */
  raw: string;
  content: string;
  reasoning: string | null;
  finishReason: FinishReason;
  format: FormatId;
  calls: { id: string; name: string; arguments: Record<string, unknown> }[];
  errors: { reason: CallErrorCode; message: string; name?: string }[];
  results: ToolResultRecord[];
  /** What the runtime changed in the turn (GenerateResult.notices: `repetition_stopped`); absent when nothing. */
  notices?: string[];
  /** GenerateResult.probabilityRemoved, to 4 decimals (NaN, a step not measured, is written as null); absent when not measured. */
  probabilityRemoved?: number[];
  /** promptTokensReused: prompt tokens the engine kept cached from earlier turns (when it says). */
  usage: { promptTokens: number; completionTokens: number; forcedTokens: number; promptTokensReused?: number };
  timings: {
    generateMs: number;
    toolsMs: number;
    timeToFirstTokenMs: number;
    decodeTokensPerSecond: number;
    grammarMs: number;
  };
}

/**
 * The suite run at the end of a run: on a fresh copy of the task holding the run's changes to its source files
 * and the task's own tests (see judge.ts).
 */
export interface TestRunRecord {
  passed: boolean;
  timedOut: boolean;
  exitCode: number | null;
  /** Tests the runner reported (passed, failed, skipped, todo; never node's stand-in for a file); null when it did not run. */
  tests: number | null;
  /** Tail of the output, capped. */
  output: string;
  ms: number;
}

/** Counts over a whole run. */
export interface RunCounts {
  turns: number;
  /** Call blocks the parser saw (valid + invalid). */
  blocks: number;
  valid: number;
  invalid: number;
  invalidByReason: Partial<Record<CallErrorCode, number>>;
  /** Valid calls whose tool result was an error (refused path, bad regex, …), by outcome code. */
  toolErrorsByCode: Partial<Record<ToolOutcomeCode, number>>;
}

/** The outcome of one run, and the line written to the transcript (JSONL, one record per run). */
export interface AgentRun {
  kind: "qtc-agent-run";
  version: 1;
  task: string;
  taskDir: string;
  model: string;
  synthetic: boolean;
  mode: GenerationMode;
  seed: number;
  maxTurns: number;
  maxTokens: number;
  toolChoice: ToolChoice;
  /** The call policy that ran (see call-policy.ts); absent in records made before policies existed (= "auto"). */
  callPolicy?: "auto" | "required-first" | "finish-tool" | "open-bias";
  thinking: boolean;
  status: RunStatus;
  /** Why the run ended in `error`. */
  error?: string;
  testsPassed: boolean;
  finalTests: TestRunRecord;
  /** How the task's code was confined: "bwrap", or "off" when the operator allowed an unconfined run. */
  sandbox: "bwrap" | "off";
  counts: RunCounts;
  tokens: { prompt: number; completion: number; forced: number };
  timings: { totalMs: number; generateMs: number; toolsMs: number; finalTestsMs: number };
  turns: TurnRecord[];
  startedAt: string;
  /** The run's workspace; removed after the run unless `keepWorkspace` was set. */
  workspace: string;
}
