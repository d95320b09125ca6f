// Owns: a bench's output folder on disk: appending each finished run to transcripts.jsonl, reading the runs
// back (for --resume, mending a line torn by a hard kill), writing report.json / report.md / chart.svg, and
// reading a previous report's config.

import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { fail } from "../errors.js";
import { isRunRecord, parseRecordLines } from "../harness/transcript.js";
import { renderChartSvg } from "./chart.js";
import { BENCH_FILES } from "./defaults.js";
import { renderMarkdown } from "./render-text.js";
import type { BenchConfig, BenchReport, BenchRunRecord } from "./types.js";

/** The four files of a bench folder. */
export function benchFiles(dir: string): { report: string; markdown: string; chart: string; transcripts: string } {
  return {
    report: path.join(dir, BENCH_FILES.report),
    markdown: path.join(dir, BENCH_FILES.markdown),
    chart: path.join(dir, BENCH_FILES.chart),
    transcripts: path.join(dir, BENCH_FILES.transcripts),
  };
}

/** True for a transcript line the bench wrote (a run record with a bench tag). */
export function isBenchRecord(value: unknown): value is BenchRunRecord {
  if (!isRunRecord(value)) return false;
  const tag = (value as Partial<BenchRunRecord>).bench;
  return typeof tag === "object" && tag !== null && typeof tag.key === "string" && typeof tag.modelIndex === "number" && typeof tag.mode === "string";
}

/** Append one finished run as one line. */
export async function appendRecord(file: string, record: BenchRunRecord): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, `${JSON.stringify(record)}\n`, "utf8");
}

/**
 * Read the runs of a transcripts.jsonl. A last line without its newline (the process was killed while
 * writing it) is cut off the file, so appending can go on; any other bad line is an `invalid_option` error
 * (exit 2), since the folder is not a bench's.
 */
export async function readRecords(file: string): Promise<BenchRunRecord[]> {
  if (!existsSync(file)) return [];
  let text = await fs.readFile(file, "utf8");
  if (text !== "" && !text.endsWith("\n")) {
    text = text.slice(0, text.lastIndexOf("\n") + 1);
    await fs.writeFile(file, text, "utf8");
  }
  const parsed = parseRecordLines(text, isBenchRecord, "a qtc bench run record");
  if (!parsed.ok) fail("invalid_option", `${file} ${parsed.message}`, { path: file });
  return parsed.records;
}

/** Write report.json only (cheap; done after every run so a hard kill still leaves a report). */
export async function writeReportJson(dir: string, report: BenchReport): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const file = benchFiles(dir).report;
  await fs.writeFile(`${file}.tmp`, `${JSON.stringify(report, null, 2)}\n`, "utf8");
  await fs.rename(`${file}.tmp`, file);
}

/** Write report.json, report.md and chart.svg, all from the same report object. */
export async function writeReport(dir: string, report: BenchReport): Promise<void> {
  await writeReportJson(dir, report);
  const files = benchFiles(dir);
  await fs.writeFile(files.markdown, renderMarkdown(report, { chart: path.basename(files.chart), transcripts: path.basename(files.transcripts) }), "utf8");
  await fs.writeFile(files.chart, renderChartSvg(report), "utf8");
}

/** The config of the report in a bench folder (for --resume). Throws `invalid_option` when there is none. */
export async function readReportConfig(dir: string): Promise<BenchConfig> {
  const file = benchFiles(dir).report;
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch {
    fail("invalid_option", `--resume ${dir}: no ${BENCH_FILES.report} there, so it is not a bench folder`, { path: file });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail("invalid_option", `--resume ${dir}: ${BENCH_FILES.report} is not valid JSON`, { path: file });
  }
  const config = (value as Partial<BenchReport> | null)?.config;
  if (typeof config !== "object" || config === null || !Array.isArray(config.models) || !Array.isArray(config.tasks) || !Array.isArray(config.seeds)) {
    fail("invalid_option", `--resume ${dir}: ${BENCH_FILES.report} has no bench config`, { path: file });
  }
  return config;
}
