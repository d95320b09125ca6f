// Owns: the shapes of a BFCL run's output (a judged question, a report row, the config and the report), shared by
// the suite that fills them and the renderers that draw them.

import type { CallErrorCode } from "../errors.js";
import type { BfclError } from "./bfcl-checker.js";
import type { BfclCategory } from "./bfcl-data.js";
import type { BenchEnvironment } from "./environment.js";
import type { BenchModelInfo } from "./types.js";

export type BfclMode = "unconstrained" | "constrained";

/** One judged question: a line of results.jsonl. */
export interface BfclResult {
  model: string;
  mode: BfclMode;
  category: BfclCategory;
  id: string;
  correct: boolean;
  /** Why it failed (BFCL's error type), or a qtc error code when the question could not run. */
  error: BfclError | string | null;
  message: string | null;
  calls: { name: string; arguments: Record<string, unknown> }[];
  blocks: number;
  validBlocks: number;
  invalidByReason: Partial<Record<CallErrorCode, number>>;
  completionTokens: number;
  decodeTokensPerSecond: number;
  raw: string;
}

/** One row of report.json: a model × mode × category (category "overall" sums a model × mode). */
export interface BfclRow {
  model: string;
  synthetic: boolean;
  mode: BfclMode;
  category: BfclCategory | "overall";
  questions: number;
  correct: number;
  /** correct / questions (overall: the unweighted mean over categories, as BFCL averages). */
  accuracy: number | null;
  /** Questions where the model wrote at least one call block. */
  questionsWithCalls: number;
  callRate: number | null;
  blocks: number;
  validBlocks: number;
  validityRate: number | null;
  invalidByReason: Partial<Record<CallErrorCode, number>>;
  failedBy: Record<string, number>;
  completionTokens: number;
  decodeTokensPerSecond: number | null;
  /** decodeTokensPerSecond / that of the same model × category unconstrained row. */
  speedRatioVsUnconstrained: number | null;
}

/** `config` in a BFCL report.json: what ran, and where (versions, platform, CPU as the task bench says them). */
export interface BfclConfig extends BenchEnvironment {
  suite: "bfcl";
  bfclCommit: string;
  categories: BfclCategory[];
  limit: number | null;
  modes: BfclMode[];
  modelInfo: BenchModelInfo[];
  synthetic: boolean;
  maxTokens: number;
  toolChoice: "auto" | "required";
  seed: number;
  threads: number;
  contextSize: number;
  gpu: string;
  date: string;
  wallMs: number;
  notes: string[];
}

export interface BfclReport {
  config: BfclConfig;
  rows: BfclRow[];
}
