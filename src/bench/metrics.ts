// Owns: the bench's arithmetic: the figures of one row from its run records, and the rows of a report
// (model × mode, in plan order, with each row's speed ratio to the same model's unconstrained row). Pure.

import type { CallErrorCode } from "../errors.js";
import type { AgentRun } from "../harness/types.js";
import { REPETITION_STOPPED } from "../runtime/repeat-guard.js";
import { summarizeRemoved } from "../runtime/probability-removed.js";
import type { BenchMode, BenchModelInfo, BenchRow, BenchRunRecord } from "./types.js";

/** a / b, or null when b is 0. */
export function ratio(a: number, b: number): number | null {
  return b === 0 ? null : a / b;
}

/**
 * Decode speed over many turns: total tokens over total decode time, where a turn's decode time is its
 * completion tokens over its own tokens/s. Turns without tokens or without a measured speed (replays) are
 * left out; null when none is left. (A plain mean of per-turn speeds would weigh a 3-token turn like a
 * 500-token one.)
 */
export function decodeRate(turns: readonly { tokens: number; tokensPerSecond: number }[]): number | null {
  let tokens = 0;
  let seconds = 0;
  for (const t of turns) {
    if (!(t.tokens > 0) || !(t.tokensPerSecond > 0) || !Number.isFinite(t.tokensPerSecond)) continue;
    tokens += t.tokens;
    seconds += t.tokens / t.tokensPerSecond;
  }
  return seconds > 0 ? tokens / seconds : null;
}

/** Add b's counts into a (a new object). */
export function mergeCounts<K extends string>(a: Partial<Record<K, number>>, b: Partial<Record<K, number>>): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = { ...a };
  for (const [k, v] of Object.entries(b) as [K, number | undefined][]) {
    if (typeof v === "number" && v > 0) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/** Sort a reason map by count (descending), then name, so reports print it the same way every time. */
function sortedReasons<K extends string>(map: Partial<Record<K, number>>): Partial<Record<K, number>> {
  const entries = (Object.entries(map) as [K, number][]).sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]));
  return Object.fromEntries(entries) as Partial<Record<K, number>>;
}

/**
 * A run's error, short enough for a table cell, the same for runs that failed the same way: the context
 * overflow the runtime reports is `context full (N tokens)`; otherwise the message without its turn number,
 * up to its first colon or 60 characters.
 */
export function errorReason(error: string | undefined): string {
  if (error === undefined || error.trim() === "") return "unknown";
  const context = /exceeds the context size \((\d+)\)/.exec(error);
  if (context) return `context full (${context[1]} tokens)`;
  const rest = error.replace(/^the model failed on turn \d+: /, "model failed: ");
  const head = rest.startsWith("model failed: ") ? rest : rest.split(":")[0]!;
  return head.length > 60 ? `${head.slice(0, 59)}…` : head;
}

/** The identity of a row, before its figures are filled in. */
export interface RowIdentity {
  model: string;
  synthetic: boolean;
  mode: BenchMode;
  lora: string | null;
}

/**
 * One row's figures from its runs. `speedRatioVsUnconstrained` is left null here; `computeRows` fills it in.
 * A run's blocks are the blocks the post-parser saw, in every mode (the same parser judges all rows).
 */
export function rowFromRuns(id: RowIdentity, runs: readonly AgentRun[]): BenchRow {
  let runsWithCalls = 0;
  let blocks = 0;
  let validBlocks = 0;
  let tasksPassed = 0;
  let runsErrored = 0;
  const erroredByReason: Record<string, number> = {};
  let loopsStopped = 0;
  let completionTokens = 0;
  let forcedTokens = 0;
  let invalidByReason: Partial<Record<CallErrorCode, number>> = {};
  const turns: { tokens: number; tokensPerSecond: number }[] = [];
  const removed: number[] = [];
  for (const run of runs) {
    if (run.counts.blocks > 0) runsWithCalls++;
    blocks += run.counts.blocks;
    validBlocks += run.counts.valid;
    invalidByReason = mergeCounts(invalidByReason, run.counts.invalidByReason);
    if (run.testsPassed) tasksPassed++;
    if (run.status === "error") {
      runsErrored++;
      const reason = errorReason(run.error);
      erroredByReason[reason] = (erroredByReason[reason] ?? 0) + 1;
    }
    completionTokens += run.tokens.completion;
    forcedTokens += run.tokens.forced;
    loopsStopped += run.turns.filter((t) => t.notices?.includes(REPETITION_STOPPED)).length;
    for (const t of run.turns) turns.push({ tokens: t.usage.completionTokens, tokensPerSecond: t.timings.decodeTokensPerSecond });
    for (const t of run.turns) for (const p of t.probabilityRemoved ?? []) removed.push(p ?? NaN);
  }
  return {
    model: id.model,
    synthetic: id.synthetic,
    mode: id.mode,
    lora: id.lora,
    runs: runs.length,
    runsWithCalls,
    callRate: ratio(runsWithCalls, runs.length),
    blocks,
    validBlocks,
    validityRate: ratio(validBlocks, blocks),
    invalidByReason: sortedReasons(invalidByReason),
    tasksPassed,
    taskSuccessRate: ratio(tasksPassed, runs.length),
    runsErrored,
    erroredByReason: sortedReasons(erroredByReason) as Record<string, number>,
    loopsStopped,
    probabilityRemoved: summarizeRemoved(removed),
    completionTokens,
    // node-llama-cpp's session does not say which tokens it forced.
    forcedTokens: id.mode === "reference" ? null : forcedTokens,
    decodeTokensPerSecond: decodeRate(turns),
    speedRatioVsUnconstrained: null,
  };
}

/** Fill in each row's speed ratio to the unconstrained row of the same model (1 for that row itself). */
export function withSpeedRatios(rows: readonly BenchRow[]): BenchRow[] {
  return rows.map((row) => {
    const base = rows.find((r) => r.model === row.model && r.mode === "unconstrained");
    const ratioValue =
      base && base.decodeTokensPerSecond !== null && row.decodeTokensPerSecond !== null && base.decodeTokensPerSecond > 0
        ? row.decodeTokensPerSecond / base.decodeTokensPerSecond
        : null;
    return { ...row, speedRatioVsUnconstrained: ratioValue };
  });
}

/** Which model × mode rows a bench has, in order. */
export interface RowSlot {
  modelIndex: number;
  mode: BenchMode;
}

/**
 * The report's rows: one per slot, in slot order, each from the records tagged with it. Slots with no
 * finished run are kept (runs 0, rates null) so a partial report shows what is still to come.
 */
export function computeRows(models: readonly BenchModelInfo[], slots: readonly RowSlot[], records: readonly BenchRunRecord[]): BenchRow[] {
  const rows = slots.map(({ modelIndex, mode }) => {
    const m = models[modelIndex];
    if (!m) throw new RangeError(`row slot names model ${modelIndex}, but there are ${models.length}`);
    const runs = records.filter((r) => r.bench.modelIndex === modelIndex && r.bench.mode === mode);
    return rowFromRuns({ model: m.label, synthetic: m.synthetic, mode, lora: m.lora }, runs);
  });
  return withSpeedRatios(rows);
}
