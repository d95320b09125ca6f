// report.md's synthetic note: rows of a trained stand-in are not called random weights.

import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/bench/render-text.js";
import { standInModelName } from "../../src/model/resolve.js";
import { config, row } from "./chart-fixtures.js";

const files = { chart: "chart.svg", transcripts: "transcripts.jsonl" };

describe("report.md's synthetic note", () => {
  it("says random weights when only random-weight models ran", () => {
    const md = renderMarkdown({ config: config(true), rows: [row({ synthetic: true })] }, files);
    expect(md).toContain("Rows marked (synthetic) use random weights.");
    expect(md).not.toContain("trained stand-in");
  });

  it("says what a trained stand-in is when one ran", () => {
    const name = standInModelName("tiny-tuned");
    const c = config(true);
    c.modelInfo = [{ spec: "synthetic:tiny-tuned", lora: null, label: name, name, synthetic: true, source: "synthetic" }];
    const md = renderMarkdown({ config: c, rows: [row({ model: name, synthetic: true })] }, files);
    expect(md).toMatch(/or are a trained stand-in .*neither random weights nor a real Qwen3/);
  });
});
