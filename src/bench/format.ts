// Owns: how the bench's numbers are spelled in the terminal table and report.md (one place, so both agree),
// and the column list both render from a report's rows.

import type { BenchRow } from "./types.js";

/** `1 task`, `5 tasks`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** A rate in [0, 1] as a percentage with one decimal, or "n/a" when there is none. */
export function pct(rate: number | null): string {
  return rate === null ? "n/a" : `${(rate * 100).toFixed(1)}%`;
}

/** A rate with the counts behind it: `100.0% (12/12)`. */
export function pctOf(rate: number | null, num: number, den: number): string {
  return rate === null ? `n/a (${num}/${den})` : `${pct(rate)} (${num}/${den})`;
}

/** Tokens per second with one decimal, or "n/a". */
export function tps(value: number | null): string {
  return value === null ? "n/a" : value.toFixed(1);
}

/** A speed ratio as `0.93×`, or "n/a". */
export function times(value: number | null): string {
  return value === null ? "n/a" : `${value.toFixed(2)}×`;
}

/** Invalid blocks by reason as `truncated 3, invalid_json 1`, or "none". */
export function reasons(map: BenchRow["invalidByReason"]): string {
  const parts = Object.entries(map).map(([k, v]) => `${k} ${v}`);
  return parts.length ? parts.join(", ") : "none";
}

/** The model cell: the label, marked when synthetic. */
export function modelCell(row: Pick<BenchRow, "model" | "synthetic">): string {
  return row.synthetic ? `${row.model} (synthetic)` : row.model;
}

/** The columns of the bench table, in order, with how each cell is spelled. */
export const TABLE_COLUMNS: readonly { head: string; cell: (r: BenchRow) => string }[] = [
  { head: "model", cell: modelCell },
  { head: "mode", cell: (r) => r.mode },
  { head: "runs", cell: (r) => String(r.runs) },
  { head: "call rate", cell: (r) => pctOf(r.callRate, r.runsWithCalls, r.runs) },
  { head: "validity", cell: (r) => pctOf(r.validityRate, r.validBlocks, r.blocks) },
  { head: "invalid by reason", cell: (r) => reasons(r.invalidByReason) },
  { head: "task success", cell: (r) => pctOf(r.taskSuccessRate, r.tasksPassed, r.runs) },
  { head: "tokens (forced)", cell: (r) => `${r.completionTokens} (${r.forcedTokens === null ? "n/a" : r.forcedTokens})` },
  { head: "tok/s", cell: (r) => tps(r.decodeTokensPerSecond) },
  { head: "vs unconstrained", cell: (r) => times(r.speedRatioVsUnconstrained) },
];
