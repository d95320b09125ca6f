// Owns: model-fixes.svg: the model-level × sampler-level comparison at a glance. One panel per call policy (test
// half), bars for call rate, validity and task success per model × mode, drawn with echarts' server-side SVG
// renderer from model-fixes.json's rows only.

import * as echarts from "echarts";
import { CHART_COLORS, MIN_BAR_PX } from "../../dist/bench/chart.js";
import { pct } from "../../dist/bench/format.js";
import type { FixRow } from "./model-fixes-rows.js";

const SHORT: Record<string, string> = { "synthetic:tiny": "base (random)", "synthetic:tiny-weak": "weak (stand-in)", "synthetic:tiny-tuned": "tuned (stand-in)", "synthetic:tiny-distilled": "distilled (stand-in)" };

const category = (r: FixRow): string => `${SHORT[r.model] ?? r.model}\n${r.mode}`;

const bar = (v: number | null) =>
  v === null ? { value: 0, label: { formatter: "n/a" }, itemStyle: { color: CHART_COLORS.notApplicable } } : { value: v, label: { formatter: pct(v) } };

/** The echarts option (exported for tests: what the chart shows, without drawing it). */
export function fixesChartOption(rows: readonly FixRow[]): Record<string, unknown> {
  const test = rows.filter((r) => r.half === "test");
  const policies = [...new Set(test.map((r) => r.policy))];
  const n = Math.max(1, policies.length);
  const panel = (i: number) => ({ left: 64, right: 24, top: `${12 + (i * 84) / n}%`, height: `${84 / n - 9}%` });
  const series = (name: string, color: string, pick: (r: FixRow) => number | null) =>
    policies.map((p, i) => ({
      name, type: "bar", xAxisIndex: i, yAxisIndex: i, itemStyle: { color }, barMaxWidth: 28, barMinHeight: MIN_BAR_PX,
      data: test.filter((r) => r.policy === p).map((r) => bar(pick(r))),
      label: { show: true, position: "top", fontSize: 9, color: "#333" },
    }));
  return {
    animation: false,
    backgroundColor: "#ffffff",
    textStyle: { fontFamily: "DejaVu Sans, Arial, Helvetica, sans-serif" },
    title: { text: "Model-level × sampler-level fixes (test half; stand-ins are trained, not real Qwen3)", left: "center", textStyle: { fontSize: 15 } },
    legend: { top: 28, data: ["call rate", "validity", "task success"] },
    grid: policies.map((_, i) => panel(i)),
    xAxis: policies.map((p, i) => ({ type: "category", gridIndex: i, data: test.filter((r) => r.policy === p).map(category), axisLabel: { interval: 0, fontSize: 9, lineHeight: 11 } })),
    yAxis: policies.map((p, i) => ({ type: "value", gridIndex: i, min: 0, max: 1, interval: 0.5, name: `policy ${p}`, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } })),
    series: [
      ...series("call rate", CHART_COLORS.callRate, (r) => r.callRate),
      ...series("validity", CHART_COLORS.validity, (r) => r.validityRate),
      ...series("task success", CHART_COLORS.success, (r) => r.taskSuccessRate),
    ],
  };
}

/** Draw the comparison as an SVG document (server-side, no DOM). */
export function renderFixesChartSvg(rows: readonly FixRow[]): string {
  const policies = new Set(rows.filter((r) => r.half === "test").map((r) => r.policy)).size;
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width: 960, height: 120 + 260 * Math.max(1, policies) });
  try {
    chart.setOption(fixesChartOption(rows));
    return chart.renderToSVGString();
  } finally {
    chart.dispose(); // without it, echarts' timers can keep the process alive
  }
}
