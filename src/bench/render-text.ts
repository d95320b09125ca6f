// Owns: rendering a bench report (report.json's object) as text: report.md and the terminal table. Both are
// drawn from the same rows and the same column list (format.ts); neither computes a figure of its own.

import Table from "cli-table3";
import { isStandInModelName } from "../model/resolve.js";
import { SYNTHETIC_NOTE } from "./defaults.js";
import { count, erroredCell, modelCell, TABLE_COLUMNS, visibleWidth, wrap } from "./format.js";
import type { BenchConfig, BenchReport } from "./types.js";

const escapeCell = (s: string): string => s.replace(/\|/g, "\\|");

/** One line naming what ran, where and with what (model names, synthetic or not, threads, versions). */
export function configLine(c: BenchConfig): string {
  const models = c.modelInfo.map((m) => (m.synthetic ? `${m.label} (synthetic)` : m.label)).join(", ");
  return (
    `${models} · ${count(c.tasks.length, "task")} × ${count(c.seeds.length, "seed")} · ${count(c.maxTurns, "turn")} × ${count(c.maxTokens, "token")} · ` +
    `tool choice ${c.toolChoice} · call policy ${c.callPolicy ?? "auto"} · thinking ${c.thinking ? "on" : "off"} · ${count(c.threads, "thread")}, gpu ${c.gpu} · ` +
    `qtc ${c.versions.qtc}, node-llama-cpp ${c.versions.nodeLlamaCpp}, node ${c.versions.node} · ${c.date}`
  );
}

/**
 * One line per row whose runs all errored (a mode that measured nothing), naming the reasons; empty when none
 * did. The CLI prints these and exits non-zero; both tables carry them under the table.
 */
export function allErroredLines(report: BenchReport): string[] {
  return report.rows
    .filter((r) => r.runs > 0 && r.runsErrored === r.runs)
    .map((r) => `every run of ${modelCell(r)} · ${r.mode} errored: ${erroredCell(r)}; its figures measure nothing (see transcripts.jsonl)`);
}

/**
 * The terminal table (cli-table3), with the synthetic warning and a partial-run note under it when they apply.
 * No line is wider than `width` (default: stdout's columns when it is a terminal, else unlimited): when the
 * table would be, each row is shown as a block of `column  value` lines instead, and the notes wrap.
 */
export function renderTable(report: BenchReport, opts: { color?: boolean; width?: number } = {}): string {
  const width = opts.width ?? (process.stdout.isTTY ? process.stdout.columns : undefined) ?? Infinity;
  const cells = report.rows.map((row) => TABLE_COLUMNS.map((c) => c.cell(row)));
  const table = new Table({
    head: TABLE_COLUMNS.map((c, i) => headFor(c.head, cells.map((r) => r[i]!))),
    style: { head: opts.color ? ["cyan"] : [], border: opts.color ? ["grey"] : [] },
    wordWrap: true,
  });
  for (const row of cells) table.push(row);
  const drawn = table.toString();
  const fits = drawn.split("\n").every((l) => visibleWidth(l) <= width);
  const notes = [configLine(report.config), ...allErroredLines(report).map((l) => `error: ${l}.`)];
  if (report.config.synthetic) notes.push(`note: ${SYNTHETIC_NOTE}.`);
  if (report.config.partial) notes.push(`partial: ${report.config.runsDone} of ${report.config.runsPlanned} runs finished.`);
  const body = fits ? drawn : `${renderCompact(report, width)}\n`;
  return [body, ...notes.flatMap((n) => (Number.isFinite(width) ? wrap(n, width, "  ") : [n]))].join("\n");
}

/**
 * A column's heading for the box table, broken at spaces so that it is no wider than the column's widest cell
 * (or its longest word): the headings, not the figures, would otherwise set most columns' widths.
 */
function headFor(head: string, cells: readonly string[]): string {
  const widest = Math.max(0, ...cells.map(visibleWidth), ...head.split(" ").map((w) => w.length));
  return wrap(head, widest).join("\n");
}

/** Each row as a heading (model · mode) and one `column  value` line per other column, values wrapped to `width`. */
function renderCompact(report: BenchReport, width: number): string {
  const [, , ...columns] = TABLE_COLUMNS;
  const pad = Math.max(...columns.map((c) => c.head.length)) + 4; // two spaces each side of the label
  const blocks = report.rows.map((row) => {
    const lines = wrap(`${modelCell(row)} · ${row.mode}`, width, "  ");
    for (const c of columns) {
      // Values wrap under themselves; a terminal too narrow for label and value side by side gets two lines.
      const [labelWidth, valueIndent] = width - pad >= 12 ? [pad, pad] : [0, 4];
      const values = wrap(c.cell(row), width - valueIndent);
      if (labelWidth === 0) lines.push(...wrap(c.head, width - 2).map((l) => `  ${l}`));
      lines.push(...values.map((v, i) => (i === 0 && labelWidth ? `  ${c.head.padEnd(pad - 2)}` : " ".repeat(valueIndent)) + v));
    }
    return lines.join("\n");
  });
  return blocks.join("\n\n");
}

/** What the (synthetic) mark means here: random weights, and, when any ran, what a trained stand-in is. */
function syntheticRowsNote(c: BenchConfig): string {
  const standIns = c.modelInfo.some((m) => isStandInModelName(m.name));
  return standIns
    ? "Rows marked (synthetic) use random weights, or are a trained stand-in (`qtc-trained-stand-in-*`: the tiny synthetic model fine-tuned by qtc on the train half's demonstrations; neither random weights nor a real Qwen3)."
    : "Rows marked (synthetic) use random weights.";
}

/** report.md: a title, what ran, the table, how to read it, and the notes. */
export function renderMarkdown(report: BenchReport, files: { chart: string; transcripts: string }): string {
  const c = report.config;
  const out: string[] = [];
  out.push(`# qtc bench${c.partial ? " (partial)" : ""}`, "");
  if (c.synthetic) out.push(`> **${SYNTHETIC_NOTE[0]!.toUpperCase()}${SYNTHETIC_NOTE.slice(1)}.** ${syntheticRowsNote(c)}`, "");
  if (c.partial) out.push(`> Interrupted: ${c.runsDone} of ${c.runsPlanned} runs finished. Continue with \`qtc bench --resume <this folder>\`.`, "");
  out.push(`| ${TABLE_COLUMNS.map((col) => col.head).join(" | ")} |`);
  out.push(`|${TABLE_COLUMNS.map((_, i) => (i < 2 ? " --- " : " ---: ")).join("|")}|`);
  for (const row of report.rows) out.push(`| ${TABLE_COLUMNS.map((col) => escapeCell(col.cell(row))).join(" | ")} |`);
  const allErrored = allErroredLines(report);
  if (allErrored.length) out.push("", ...allErrored.map((l) => `> **Error:** ${l}.`));
  out.push("", `![bench chart](${files.chart})`, "");
  out.push("## What ran", "");
  out.push(`- Models: ${c.modelInfo.map((m) => `\`${m.label}\` (${m.spec}${m.lora ? ` + LoRA ${m.lora}` : ""}; ${m.synthetic ? "synthetic" : m.source})`).join(", ")}`);
  out.push(`- Modes: ${c.modes.join(", ")}${c.reference ? ` (reference: ${c.reference})` : ""}`);
  out.push(`- Tasks (${c.tasks.length}, from \`${c.tasksDir}\`): ${c.tasks.join(", ")}`);
  out.push(`- Seeds: ${c.seeds.join(", ")}; ${count(c.maxTurns, "turn")} a run, ${count(c.maxTokens, "token")} a turn; tool choice \`${c.toolChoice}\`; call policy \`${c.callPolicy ?? "auto"}\`; thinking ${c.thinking ? "on" : "off"}`);
  out.push(`- Machine: ${c.platform}, ${c.cpu}; ${count(c.threads, "thread")}, context ${c.contextSize}, gpu ${c.gpu}`);
  out.push(`- Versions: qtc ${c.versions.qtc}, node-llama-cpp ${c.versions.nodeLlamaCpp}, node ${c.versions.node}; started ${c.date}, ${(c.wallMs / 1000).toFixed(1)} s`);
  out.push(`- Every run's transcript: \`${files.transcripts}\`; the figures above are computed from it (report.json holds them).`);
  out.push("", "## How to read it", "");
  out.push(
    "- **errored**: runs that ended in an error before their turn limit or answer (a model failure, a context overflow, an abort), with their reasons; the other columns still count their finished turns.",
    "- **call rate**: runs in which the model wrote at least one tool-call block, valid or not.",
    "- **validity**: valid blocks / all blocks the post-parser saw. Every row is judged by the same parser; in constrained mode the grammar makes this 100% by construction.",
    "- **invalid by reason**: the parser's reason codes for the rejected blocks (`truncated`, `invalid_json`, `unknown_tool`, …).",
    "- **task success**: runs after which the task's `node --test` suite passes.",
    "- **tokens / forced**: completion tokens of all turns; forced = fed by jump-forward or forced tags instead of sampled.",
    "- **tok/s**: completion tokens over decode time (after the prompt was evaluated), over all turns; **vs unconstrained** divides it by the same model's unconstrained row.",
  );
  if (c.notes.length) out.push("", "## Notes", "", ...c.notes.map((n) => `- ${n}`));
  return `${out.join("\n")}\n`;
}
