// Owns: how the bench's numbers are spelled in the terminal table and report.md (one place, so both agree),
// the column list both render from a report's rows, and fitting text to a terminal's width.

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

/** Errored runs and why: `0`, or `3 (context full (4096 tokens) 3)`. Reports made before reasons were kept show the count. */
export function erroredCell(r: Pick<BenchRow, "runsErrored" | "erroredByReason">): string {
  if (r.runsErrored === 0) return "0";
  const parts = Object.entries(r.erroredByReason ?? {}).map(([k, v]) => `${k} ${v}`);
  return parts.length ? `${r.runsErrored} (${parts.join(", ")})` : String(r.runsErrored);
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
  { head: "errored", cell: erroredCell },
  { head: "call rate", cell: (r) => pctOf(r.callRate, r.runsWithCalls, r.runs) },
  { head: "validity", cell: (r) => pctOf(r.validityRate, r.validBlocks, r.blocks) },
  { head: "invalid by reason", cell: (r) => reasons(r.invalidByReason) },
  { head: "task success", cell: (r) => pctOf(r.taskSuccessRate, r.tasksPassed, r.runs) },
  { head: "tokens (forced)", cell: (r) => `${r.completionTokens} (${r.forcedTokens === null ? "n/a" : r.forcedTokens})` },
  { head: "loops stopped", cell: (r) => (r.loopsStopped === undefined ? "n/a" : String(r.loopsStopped)) },
  { head: "p removed (mean/p90)", cell: (r) => removedCell(r.probabilityRemoved) },
  { head: "tok/s", cell: (r) => tps(r.decodeTokensPerSecond) },
  { head: "vs unconstrained", cell: (r) => times(r.speedRatioVsUnconstrained) },
];

/** The probability the constraint removed per sampled token: mean and 90th percentile, in percent. */
function removedCell(p: BenchRow["probabilityRemoved"] | undefined): string {
  if (!p) return "n/a";
  const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 2 : 1)}%`;
  return `${pct(p.meanPerToken)} / ${pct(p.p90)}`;
}

/** A duration as `45s`, `6m07s` or `1h02m` (rounded to whole seconds first, so never `6m60s`). */
export function duration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const [h, m, sec] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number): string => String(n).padStart(2, "0");
  if (h > 0) return `${h}h${two(m)}m`;
  return m > 0 ? `${m}m${two(sec)}s` : `${sec}s`;
}

// Colour codes (cli-table3's) take no columns on screen.
const ANSI = /\x1b\[[0-9;]*m/g;

/** Columns `text` takes on a terminal (ANSI colour codes take none; every other code point one). */
export function visibleWidth(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

/** `text` cut to `width` columns, ending in `…` when cut. Plain text only (no colour codes). */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/**
 * `text` broken into lines of at most `width` columns, at spaces where it can (a longer word is cut), every
 * line after the first starting with `indent`. Plain text only.
 */
export function wrap(text: string, width: number, indent = ""): string[] {
  const len = (t: string): number => [...t].length;
  const lines: string[] = [];
  let line = "";
  const room = (): number => Math.max(1, width - (lines.length ? len(indent) : 0));
  const flush = (): void => {
    lines.push((lines.length ? indent : "") + line);
    line = "";
  };
  for (const word of text.split(" ")) {
    if (line !== "" && len(line) + 1 + len(word) > room()) flush();
    if (line !== "") {
      line += ` ${word}`;
      continue;
    }
    const chars = [...word];
    while (chars.length > room()) {
      line = chars.splice(0, room()).join("");
      flush();
    }
    line = chars.join("");
  }
  if (line !== "" || lines.length === 0) flush();
  return lines;
}
