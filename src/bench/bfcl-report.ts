// Owns: how a BFCL report reads: the terminal table, report.md and chart.svg (accuracy, call rate and validity per
// model × category × mode, and decode tok/s below), all drawn from report.json's object only.

import * as echarts from "echarts";
import { CHART_COLORS, MIN_BAR_PX } from "./chart.js";
import { pct, pctOf, reasons, times, tps } from "./format.js";
import type { BfclReport, BfclRow } from "./bfcl-rows.js";

const failures = (r: BfclRow): string => {
  const parts = Object.entries(r.failedBy).map(([k, v]) => `${k} ${v}`);
  return parts.length ? parts.join(", ") : "none";
};

const HEADER = ["model", "mode", "category", "accuracy", "call rate", "validity", "invalid blocks", "failed by", "tok/s", "vs free"];

function cells(r: BfclRow): string[] {
  return [
    `${r.model}${r.synthetic ? " (synthetic)" : ""}`,
    r.mode,
    r.category,
    pctOf(r.accuracy, r.correct, r.questions),
    pctOf(r.callRate, r.questionsWithCalls, r.questions),
    pctOf(r.validityRate, r.validBlocks, r.blocks),
    reasons(r.invalidByReason),
    failures(r),
    tps(r.decodeTokensPerSecond),
    times(r.speedRatioVsUnconstrained),
  ];
}

function configLine(report: BfclReport): string {
  const c = report.config;
  return `BFCL @ ${c.bfclCommit.slice(0, 12)} · ${c.categories.join(", ")} · ${c.limit === null ? "all" : `first ${c.limit}`} questions each · tool choice ${c.toolChoice} · ${c.maxTokens} tokens · seed ${c.seed} · ${c.threads} threads · ${c.cpu} · node-llama-cpp ${c.versions.nodeLlamaCpp} · ${(c.wallMs / 60000).toFixed(1)} min`;
}

/** The table printed in the terminal. */
export function renderBfclTable(report: BfclReport): string {
  const rows = [HEADER, ...report.rows.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [configLine(report), ...report.config.notes, "", line(HEADER), widths.map((w) => "-".repeat(w)).join("  "), ...report.rows.slice().map(cells).map(line)].join("\n");
}

/** report.md: the settings, the notes, one table of every row, and the files beside it. */
export function renderBfclMarkdown(report: BfclReport, files: { chart: string; results: string }): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  return [
    "# qtc bench --suite bfcl",
    "",
    configLine(report),
    "",
    ...report.config.notes.map((n) => `- ${n}`),
    "",
    `| ${HEADER.join(" | ")} |`,
    `| ${HEADER.map(() => "---").join(" | ")} |`,
    ...report.rows.map((r) => `| ${cells(r).map(esc).join(" | ")} |`),
    "",
    `![BFCL](${files.chart})`,
    "",
    `Every question's output and verdict: \`${files.results}\`.`,
    "",
  ].join("\n");
}

const bar = (v: number | null) =>
  v === null ? { value: 0, label: { formatter: "n/a" }, itemStyle: { color: CHART_COLORS.notApplicable } } : { value: v, label: { formatter: pct(v) } };

/** The echarts option (exported for tests: what the chart shows, without drawing it). */
export function bfclChartOption(report: BfclReport): Record<string, unknown> {
  const rows = report.rows;
  const names = rows.map((r) => `${r.model.replace(/([@+#])/g, "\n$1")}\n${r.category}\n${r.mode}`);
  const series = (name: string, color: string, pick: (r: BfclRow) => number | null) => ({
    name, type: "bar", xAxisIndex: 0, yAxisIndex: 0, itemStyle: { color }, barMaxWidth: 24, barMinHeight: MIN_BAR_PX,
    data: rows.map((r) => bar(pick(r))), label: { show: true, position: "top", fontSize: 8, color: "#333", rotate: 90, align: "left", verticalAlign: "middle" },
  });
  return {
    animation: false,
    backgroundColor: "#ffffff",
    textStyle: { fontFamily: "DejaVu Sans, Arial, Helvetica, sans-serif" },
    title: { text: `BFCL (gorilla ${report.config.bfclCommit.slice(0, 12)})${report.config.synthetic ? ": synthetic weights, validity tests the guarantee" : ""}`, left: "center", textStyle: { fontSize: 15 } },
    legend: { top: 28, data: ["AST accuracy", "call rate", "validity", "tok/s"] },
    grid: [{ left: 64, right: 24, top: 90, height: "40%" }, { left: 64, right: 24, bottom: 110, height: "20%" }],
    xAxis: [0, 1].map((gridIndex) => ({ type: "category", gridIndex, data: names, axisLabel: { interval: 0, fontSize: 8, lineHeight: 10 } })),
    yAxis: [
      { type: "value", gridIndex: 0, min: 0, max: 1, interval: 0.25, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
      { type: "value", gridIndex: 1, name: "decode tok/s" },
    ],
    series: [
      series("AST accuracy", CHART_COLORS.success, (r) => r.accuracy),
      series("call rate", CHART_COLORS.callRate, (r) => r.callRate),
      series("validity", CHART_COLORS.validity, (r) => r.validityRate),
      {
        name: "tok/s", type: "bar", xAxisIndex: 1, yAxisIndex: 1, itemStyle: { color: CHART_COLORS.speed }, barMaxWidth: 24, barMinHeight: MIN_BAR_PX,
        data: rows.map((r) => (r.decodeTokensPerSecond === null ? bar(null) : { value: r.decodeTokensPerSecond, label: { formatter: tps(r.decodeTokensPerSecond) } })),
        label: { show: true, position: "top", fontSize: 8, color: "#333" },
      },
    ],
  };
}

/** Draw the report as an SVG document (server-side, no DOM). */
export function renderBfclChartSvg(report: BfclReport): string {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width: Math.max(960, 120 + report.rows.length * 70), height: 720 });
  try {
    chart.setOption(bfclChartOption(report));
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
