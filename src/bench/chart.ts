// Owns: chart.svg: a bench report drawn with echarts' server-side SVG renderer. Top panel: validity, call rate
// and task success (0–100%) per row as grouped bars; bottom panel: decode tokens/s per row with the ratio to
// the unconstrained row. The title says when a model is synthetic. Drawn from report.json's object only.

import * as echarts from "echarts";
import { BENCH_DEFAULTS, SYNTHETIC_NOTE } from "./defaults.js";
import { count, pct, times, tps } from "./format.js";
import type { BenchReport, BenchRow } from "./types.js";

export interface ChartOptions {
  /** Default: BENCH_DEFAULTS.chartWidth (960). */
  width?: number;
  /** Default: BENCH_DEFAULTS.chartHeight (640). */
  height?: number;
}

/** The x-axis label of a row: its model (broken before `@`, `+` and `#`), `(synthetic)` when it is, and its mode. */
export function rowCategory(row: BenchRow): string {
  const model = row.model.replace(/([@+#])/g, "\n$1");
  return `${model}${row.synthetic ? "\n(synthetic)" : ""}\n${row.mode}`;
}

/** Width of the chart: the option, or wide enough for every row (at least the default). */
export function chartWidth(rows: number, opts: ChartOptions = {}): number {
  return opts.width ?? Math.max(BENCH_DEFAULTS.chartWidth, 120 + rows * 150);
}

const COLORS = { validity: "#2f7ed8", callRate: "#8bbc21", success: "#f28f43", speed: "#7f6bb0" } as const;

const percentSeries = (name: string, color: string, values: (number | null)[]) => ({
  name,
  type: "bar" as const,
  xAxisIndex: 0,
  yAxisIndex: 0,
  itemStyle: { color },
  barMaxWidth: 36,
  // null = nothing to rate (no blocks, no runs): no bar, and the label says n/a.
  data: values.map((v) => ({ value: v === null ? 0 : v, label: { formatter: pct(v) } })),
  label: { show: true, position: "top" as const, fontSize: 10, color: "#333" },
});

/** The echarts option for a report (exported for tests: what the chart shows, without drawing it). */
export function chartOption(report: BenchReport): Record<string, unknown> {
  const rows = report.rows;
  const categories = rows.map(rowCategory);
  const c = report.config;
  const subtitle = [
    `${count(c.tasks.length, "task")} × ${count(c.seeds.length, "seed")}, ${count(c.maxTurns, "turn")} × ${count(c.maxTokens, "token")}, tool choice ${c.toolChoice}; ` +
      `${count(c.threads, "thread")}; qtc ${c.versions.qtc}, node-llama-cpp ${c.versions.nodeLlamaCpp}${c.partial ? `; PARTIAL: ${c.runsDone}/${c.runsPlanned} runs` : ""}`,
  ];
  const title = c.synthetic ? `qtc bench: ${SYNTHETIC_NOTE}` : "qtc bench: tool-call validity, call rate, task success and speed";
  return {
    animation: false,
    backgroundColor: "#ffffff",
    textStyle: { fontFamily: "DejaVu Sans, Arial, Helvetica, sans-serif" },
    title: {
      text: title,
      subtext: subtitle.join("\n"),
      left: "center",
      textStyle: { fontSize: 16, color: c.synthetic ? "#b03020" : "#222" },
      subtextStyle: { fontSize: 11, color: "#555" },
    },
    legend: { top: 64, itemGap: 24, data: ["validity", "call rate", "task success", "decode tok/s"] },
    grid: [
      { left: 64, right: 24, top: 112, height: "36%", containLabel: false },
      { left: 64, right: 24, bottom: 84, height: "22%", containLabel: false },
    ],
    xAxis: [
      { type: "category", gridIndex: 0, data: categories, axisLabel: { show: false }, axisTick: { alignWithLabel: true } },
      { type: "category", gridIndex: 1, data: categories, axisLabel: { interval: 0, fontSize: 10, lineHeight: 12 }, axisTick: { alignWithLabel: true } },
    ],
    yAxis: [
      { type: "value", gridIndex: 0, min: 0, max: 1, interval: 0.25, name: "rate", axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
      { type: "value", gridIndex: 1, min: 0, name: "tokens/s" },
    ],
    series: [
      percentSeries("validity", COLORS.validity, rows.map((r) => r.validityRate)),
      percentSeries("call rate", COLORS.callRate, rows.map((r) => r.callRate)),
      percentSeries("task success", COLORS.success, rows.map((r) => r.taskSuccessRate)),
      {
        name: "decode tok/s",
        type: "bar",
        xAxisIndex: 1,
        yAxisIndex: 1,
        itemStyle: { color: COLORS.speed },
        barMaxWidth: 48,
        data: rows.map((r) => ({
          value: r.decodeTokensPerSecond ?? 0,
          label: {
            formatter:
              r.decodeTokensPerSecond === null
                ? "n/a"
                : r.mode === "unconstrained" || r.speedRatioVsUnconstrained === null
                  ? tps(r.decodeTokensPerSecond)
                  : `${tps(r.decodeTokensPerSecond)} (${times(r.speedRatioVsUnconstrained)})`,
          },
        })),
        label: { show: true, position: "top", fontSize: 10, color: "#333" },
      },
    ],
  };
}

/** Draw the report as an SVG document (server-side, no DOM). */
export function renderChartSvg(report: BenchReport, opts: ChartOptions = {}): string {
  const width = chartWidth(report.rows.length, opts);
  const height = opts.height ?? BENCH_DEFAULTS.chartHeight;
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption(chartOption(report));
    return chart.renderToSVGString();
  } finally {
    chart.dispose(); // without it, echarts' timers can keep the process alive
  }
}
