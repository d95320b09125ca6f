// Owns: FixRow, one row of the model-fixes comparison (model × call policy × mode on one half), which the
// report (model-fixes.ts) builds and its chart (model-fixes-chart.ts) draws.

import type { CallPolicy } from "../../dist/harness/call-policy.js";
import type { TaskHalf } from "../../dist/training/split.js";

export interface FixRow {
  half: TaskHalf;
  policy: CallPolicy;
  /** The `--model` spec (synthetic:tiny, synthetic:tiny-weak, synthetic:tiny-tuned, synthetic:tiny-distilled, synthetic:tiny-lora). */
  model: string;
  /** "random weights", "trained stand-in", its distilled variant or its LoRA one (see model-fixes.ts). */
  kind: string;
  mode: string;
  runs: number;
  callRate: number | null;
  validityRate: number | null;
  taskSuccessRate: number | null;
  decodeTokensPerSecond: number | null;
  cutOff: number;
}
