// Issue 18, item 7: the chart drew zero values as floating labels with no bar, so a series that is 0 everywhere
// (task success on a synthetic model) never showed, and only the lower panel named its rows. This renders
// chart.svg in headless Chromium (Debian's `chromium`; .ci/run installs it), reads the screenshot's pixels and
// checks them against where the layout puts things: in every row's band, a bar of every series' colour sits on
// the axis of its panel (grey for n/a), and row labels are drawn under both panels.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_COLORS, CHART_LAYOUT, chartWidth, renderChartSvg } from "../../src/bench/chart.js";
import { BENCH_DEFAULTS } from "../../src/bench/defaults.js";
import type { BenchReport } from "../../src/bench/types.js";
import { config, row } from "./chart-fixtures.js";
import { readPng, type Picture } from "./png.js";

const CHROMIUM = "/usr/bin/chromium";
const dir = mkdtempSync(join(tmpdir(), "qtc-chart-picture-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Zeros and n/a on purpose: task success is 0 in every row, call rate 0 in the first, validity and speed n/a.
const report: BenchReport = {
  config: config(true),
  rows: [
    row({ synthetic: true, mode: "unconstrained", runsWithCalls: 0, callRate: 0, blocks: 0, validBlocks: 0, validityRate: null, tasksPassed: 0, taskSuccessRate: 0, decodeTokensPerSecond: 200 }),
    row({ synthetic: true, mode: "constrained", callRate: 1, validityRate: 1, tasksPassed: 0, taskSuccessRate: 0, decodeTokensPerSecond: 100, speedRatioVsUnconstrained: 0.5 }),
    row({ synthetic: true, mode: "reference", callRate: 1, validityRate: 0.375, tasksPassed: 0, taskSuccessRate: 0, decodeTokensPerSecond: null, speedRatioVsUnconstrained: null }),
  ],
};
const width = chartWidth(report.rows.length);
const height = BENCH_DEFAULTS.chartHeight;

function screenshot(svg: string): Picture {
  const svgPath = join(dir, "chart.svg");
  const pngPath = join(dir, "chart.png");
  writeFileSync(svgPath, svg);
  // The flags keep Chromium off the (closed) network; a fresh profile per run.
  const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", `--user-data-dir=${join(dir, "profile")}`, "--hide-scrollbars",
    "--force-device-scale-factor=1", `--window-size=${width},${height}`, `--screenshot=${pngPath}`, `file://${svgPath}`];
  const r = spawnSync(CHROMIUM, flags, { encoding: "utf8", timeout: 120_000 });
  if (!existsSync(pngPath)) throw new Error(`chromium wrote no screenshot (exit ${r.status}): ${r.stderr.slice(-2000)}`);
  return readPng(readFileSync(pngPath));
}

const hex = (c: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)) as [number, number, number];
const near = (a: readonly number[], b: readonly number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 8);

/** Pixels of `colour` in the rectangle [x0, x1) × [y0, y1). */
function countColour(p: Picture, colour: string, x0: number, x1: number, y0: number, y1: number): number {
  const want = hex(colour);
  let n = 0;
  for (let y = Math.max(0, Math.floor(y0)); y < Math.min(p.height, y1); y++) {
    for (let x = Math.max(0, Math.floor(x0)); x < Math.min(p.width, x1); x++) if (near(p.rgb(x, y), want)) n++;
  }
  return n;
}

/** Dark pixels (text) in a rectangle. */
function countDark(p: Picture, x0: number, x1: number, y0: number, y1: number): number {
  let n = 0;
  for (let y = Math.floor(y0); y < Math.min(p.height, y1); y++) {
    for (let x = Math.floor(x0); x < Math.min(p.width, x1); x++) if (p.rgb(x, y).every((v) => v < 140)) n++;
  }
  return n;
}

const L = CHART_LAYOUT;
const plotWidth = width - L.left - L.right;
const band = (i: number) => [L.left + (i * plotWidth) / report.rows.length + 2, L.left + ((i + 1) * plotWidth) / report.rows.length - 2] as const;
const topAxis = L.top + L.topHeight * height;
const bottomAxis = height - L.bottom;

let picture: Picture;
beforeAll(() => {
  expect(existsSync(CHROMIUM), "install Debian's chromium (apt-get install -y chromium), as .ci/run does").toBe(true);
  picture = screenshot(renderChartSvg(report));
  expect([picture.width, picture.height]).toEqual([width, height]);
}, 150_000);

describe("chart.svg as a picture", () => {
  it("every row shows a bar of every rate on the top panel's axis, zeros included; n/a is grey", () => {
    const missing: string[] = [];
    report.rows.forEach((r, i) => {
      const [x0, x1] = band(i);
      const expect1 = (what: string, colour: string) => {
        if (countColour(picture, colour, x0, x1, topAxis - 8, topAxis) < 6) missing.push(`row ${i} (${r.mode}): ${what}`);
      };
      expect1("validity", r.validityRate === null ? CHART_COLORS.notApplicable : CHART_COLORS.validity);
      expect1("call rate", CHART_COLORS.callRate);
      expect1("task success", CHART_COLORS.success);
    });
    expect(missing).toEqual([]);
  });

  it("every row shows its speed bar on the bottom panel's axis; n/a is grey", () => {
    report.rows.forEach((r, i) => {
      const [x0, x1] = band(i);
      const colour = r.decodeTokensPerSecond === null ? CHART_COLORS.notApplicable : CHART_COLORS.speed;
      expect(countColour(picture, colour, x0, x1, bottomAxis - 8, bottomAxis), `row ${i}`).toBeGreaterThanOrEqual(6);
    });
  });

  it("a colour that belongs to the other panel is not found (the check tells colours apart)", () => {
    expect(countColour(picture, CHART_COLORS.speed, L.left, width - L.right, L.top, topAxis)).toBe(0);
    expect(countColour(picture, CHART_COLORS.success, L.left, width - L.right, topAxis + 1, bottomAxis)).toBe(0);
  });

  it("row labels under both panels, in every row's band", () => {
    report.rows.forEach((_, i) => {
      const [x0, x1] = band(i);
      expect(countDark(picture, x0, x1, topAxis + 4, topAxis + 52), `top panel, row ${i}`).toBeGreaterThan(20);
      expect(countDark(picture, x0, x1, bottomAxis + 4, bottomAxis + 52), `bottom panel, row ${i}`).toBeGreaterThan(20);
    });
  });
});
