// Owns: `qtc bench --suite bfcl`: checks which bench flags apply to it, runs the BFCL suite with a download and
// question progress line on stderr, and prints its table (or report.json's content with --json).

import { fail } from "../../errors.js";
import { runBfclBench, type BfclMode } from "../../bench/bfcl.js";
import { BFCL_CATEGORIES, type BfclCategory } from "../../bench/bfcl-data.js";
import { renderBfclTable } from "../../bench/bfcl-report.js";
import type { BenchModelSpec } from "../../bench/types.js";
import type { GpuChoice } from "../../model/load.js";

/** The suites `--suite` takes: the 40 agent tasks, or BFCL's single-turn questions. */
export const BENCH_SUITES = ["tasks", "bfcl"] as const;

/** The flags `qtc bench --suite bfcl` reads (the rest of bench's flags do not apply and are refused). */
export interface BfclFlags {
  model?: BenchModelSpec[];
  modes: ("unconstrained" | "constrained" | "reference")[];
  categories?: string;
  limit?: number;
  data?: string;
  maxTokens?: number;
  toolChoice?: "auto" | "required";
  threads?: number;
  contextSize?: number;
  gpu?: GpuChoice;
  out?: string;
  json?: boolean;
  /** Task-suite flags given, by name: each is refused. */
  notForBfcl: string[];
}

/** `--categories a,b` (or `all`) as BFCL category names; an unknown one is a clear error listing the known ones. */
export function parseCategories(value: string | undefined): BfclCategory[] | undefined {
  if (value === undefined) return undefined;
  if (value === "all") return [...BFCL_CATEGORIES];
  const names = value.split(",").map((s) => s.trim()).filter(Boolean);
  for (const n of names) {
    if (!(BFCL_CATEGORIES as readonly string[]).includes(n)) fail("invalid_option", `--categories: unknown BFCL category ${JSON.stringify(n)}; known: ${BFCL_CATEGORIES.join(", ")}, or all`);
  }
  if (names.length === 0) fail("invalid_option", "--categories: give at least one category");
  return [...new Set(names)] as BfclCategory[];
}

export async function benchBfcl(flags: BfclFlags, signal: AbortSignal): Promise<void> {
  if (flags.notForBfcl.length) fail("invalid_option", `${flags.notForBfcl.join(", ")}: not used by --suite bfcl (each question is one turn)`);
  if (flags.modes.includes("reference")) fail("invalid_option", "--reference: not used by --suite bfcl");
  const tty = process.stderr.isTTY === true;
  const { report, dir } = await runBfclBench({
    models: flags.model,
    modes: flags.modes as BfclMode[],
    categories: parseCategories(flags.categories),
    limit: flags.limit,
    dataDir: flags.data,
    maxTokens: flags.maxTokens,
    toolChoice: flags.toolChoice,
    threads: flags.threads,
    contextSize: flags.contextSize,
    gpu: flags.gpu,
    out: flags.out,
    signal,
    onProgress: (file, received, total) => {
      if (!tty) return;
      const of = total ? ` of ${(total / 1e6).toFixed(1)} MB (${Math.floor((received / total) * 100)}%)` : "";
      process.stderr.write(`\rBFCL data: ${file} ${(received / 1e6).toFixed(1)} MB${of}\x1b[K`);
    },
    onQuestion: (q) => {
      if (tty) process.stderr.write(`\rbfcl ${q.done}/${q.planned}: ${q.model} ${q.mode} ${q.category}\x1b[K`);
    },
  });
  if (tty) process.stderr.write("\r\x1b[K");
  if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${renderBfclTable(report)}\nreport: ${dir}\n`);
}
