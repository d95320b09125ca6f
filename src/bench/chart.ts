// Owns: chart.svg: a bench report drawn with echarts' server-side SVG renderer. Top panel: validity, call rate
// and task success (0–100%) per row as grouped bars; bottom panel: decode tokens/s per row with the ratio to
// the unconstrained row. Both panels name every row. A zero is a thin bar in its series' colour (so every series
// shows, even one that is 0 everywhere), n/a a grey one. The title says when a model is synthetic. Drawn from
// report.json's object only.

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

export const CHART_COLORS = { validity: "#2f7ed8", callRate: "#8bbc21", success: "#f28f43", speed: "#7f6bb0", notApplicable: "#b8b8b8" } as const;

/** Height in pixels of the bar drawn for a zero or n/a value, so it reads as a bar and not a floating label. */
export const MIN_BAR_PX = 4;

/** The layout of the two panels (pixels; exported so the picture test can find where bars must be). */
export const CHART_LAYOUT = Object.freeze({ left: 64, right: 24, top: 112, topHeight: 0.34, bottom: 84, bottomHeight: 0.2 });

/** One bar's data: null (nothing to rate: no blocks, no runs) is a grey stub labelled n/a. */
const barDatum = (value: number | null, label: string) =>
  value === null
    ? { value: 0, label: { formatter: label }, itemStyle: { color: CHART_COLORS.notApplicable } }
    : { value, label: { formatter: label } };

const percentSeries = (name: string, color: string, values: (number | null)[]) => ({
  name,
  type: "bar" as const,
  xAxisIndex: 0,
  yAxisIndex: 0,
  itemStyle: { color },
  barMaxWidth: 36,
  barMinHeight: MIN_BAR_PX,
  data: values.map((v) => barDatum(v, pct(v))),
  label: { show: true, position: "top" as const, fontSize: 10, color: "#333" },
});

const categoryAxis = (gridIndex: number, categories: string[]) => ({
  type: "category",
  gridIndex,
  data: categories,
  axisLabel: { interval: 0, fontSize: 10, lineHeight: 12 },
  axisTick: { alignWithLabel: true },
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
  const L = CHART_LAYOUT;
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
      { left: L.left, right: L.right, top: L.top, height: `${L.topHeight * 100}%`, containLabel: false },
      { left: L.left, right: L.right, bottom: L.bottom, height: `${L.bottomHeight * 100}%`, containLabel: false },
    ],
    xAxis: [categoryAxis(0, categories), categoryAxis(1, categories)],
    yAxis: [
      { type: "value", gridIndex: 0, min: 0, max: 1, interval: 0.25, name: "rate", axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
      { type: "value", gridIndex: 1, min: 0, name: "tokens/s" },
    ],
    series: [
      percentSeries("validity", CHART_COLORS.validity, rows.map((r) => r.validityRate)),
      percentSeries("call rate", CHART_COLORS.callRate, rows.map((r) => r.callRate)),
      percentSeries("task success", CHART_COLORS.success, rows.map((r) => r.taskSuccessRate)),
      {
        name: "decode tok/s",
        type: "bar",
        xAxisIndex: 1,
        yAxisIndex: 1,
        itemStyle: { color: CHART_COLORS.speed },
        barMaxWidth: 48,
        barMinHeight: MIN_BAR_PX,
        data: rows.map((r) => barDatum(r.decodeTokensPerSecond, speedLabel(r))),
        label: { show: true, position: "top", fontSize: 10, color: "#333" },
      },
    ],
  };
}

function speedLabel(r: BenchRow): string {
  if (r.decodeTokensPerSecond === null) return "n/a";
  if (r.mode === "unconstrained" || r.speedRatioVsUnconstrained === null) return tps(r.decodeTokensPerSecond);
  return `${tps(r.decodeTokensPerSecond)} (${times(r.speedRatioVsUnconstrained)})`;
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
