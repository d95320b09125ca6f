// chart.svg: what the chart shows (from the report's rows only) and that it renders as SVG.

import { describe, expect, it } from "vitest";
import { chartOption, chartWidth, renderChartSvg, rowCategory } from "../../src/bench/chart.js";
import { renderTable } from "../../src/bench/render-text.js";
import type { BenchReport } from "../../src/bench/types.js";
import { config, row } from "./chart-fixtures.js";

const report = (synthetic: boolean): BenchReport => ({
  config: config(synthetic),
  rows: [
    row({ synthetic }),
    row({ synthetic, mode: "constrained", validityRate: 1, validBlocks: 4, decodeTokensPerSecond: 40, speedRatioVsUnconstrained: 0.8, blocks: 4 }),
    row({ synthetic, model: "n", validityRate: null, blocks: 0, validBlocks: 0, decodeTokensPerSecond: null, speedRatioVsUnconstrained: null }),
  ],
});

type Series = { name: string; data: { value: number; label: { formatter: string } }[] };

describe("chartOption", () => {
  it("has one category per row and the three rates plus tokens/s as series, drawn from the rows", () => {
    const o = chartOption(report(false)) as { xAxis: { data: string[] }[]; series: Series[]; title: { text: string } };
    expect(o.xAxis[0]!.data).toEqual(["m\nunconstrained", "m\nconstrained", "n\nunconstrained"]);
    const byName = Object.fromEntries(o.series.map((s) => [s.name, s.data]));
    expect(Object.keys(byName)).toEqual(["validity", "call rate", "task success", "decode tok/s"]);
    expect(byName.validity!.map((d) => d.value)).toEqual([0.75, 1, 0]);
    expect(byName.validity!.map((d) => d.label.formatter)).toEqual(["75.0%", "100.0%", "n/a"]);
    expect(byName["call rate"]!.map((d) => d.value)).toEqual([0.5, 0.5, 0.5]);
    expect(byName["task success"]!.map((d) => d.value)).toEqual([0.25, 0.25, 0.25]);
    expect(byName["decode tok/s"]!.map((d) => d.label.formatter)).toEqual(["50.0", "40.0 (0.80×)", "n/a"]);
    expect(o.title.text).not.toContain("synthetic");
  });

  it("says so in the title and the categories when a model is synthetic", () => {
    const o = chartOption(report(true)) as { title: { text: string } };
    expect(o.title.text).toContain("synthetic weights: validity tests the guarantee, not model quality");
    expect(rowCategory(report(true).rows[0]!)).toBe("m\n(synthetic)\nunconstrained");
    expect(rowCategory({ ...report(false).rows[0]!, model: "tiny@seed1+lora:a.gguf#2" })).toBe("tiny\n@seed1\n+lora:a.gguf\n#2\nunconstrained");
  });
});

describe("chartWidth", () => {
  it("grows with the rows unless given", () => {
    expect(chartWidth(3)).toBe(960);
    expect(chartWidth(10)).toBe(120 + 10 * 150);
    expect(chartWidth(10, { width: 700 })).toBe(700);
  });
});

describe("renderChartSvg", () => {
  it("renders an SVG document with the title and every row's label", () => {
    const svg = renderChartSvg(report(true), { width: 800, height: 500 });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain('width="800"');
    expect(svg).toContain("synthetic weights: validity tests the guarantee, not model quality");
    expect(svg).toContain("40.0 (0.80×)");
  });
});

describe("renderTable", () => {
  it("prints every row with absolute values next to the ratio, the config line and the synthetic note", () => {
    const text = renderTable(report(true));
    expect(text).toContain("75.0% (3/4)");
    expect(text).toContain("truncated 1");
    expect(text).toContain("0.80×");
    expect(text).toContain("m (synthetic)");
    expect(text).toContain("qtc 0.1.0, node-llama-cpp 3.21.1, node v20.0.0");
    expect(text).toContain("note: synthetic weights: validity tests the guarantee, not model quality.");
    expect(renderTable(report(false))).not.toContain("note: synthetic");
  });
});
