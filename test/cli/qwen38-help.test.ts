// Issue 51: the CLI names the Qwen3.8 models (`qtc pull --help`, `qtc grammar --help`) and `qtc run` takes a
// reasoning effort that reaches the template.

import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/cli.js";

const help = (name: string) => buildProgram().commands.find((c) => c.name() === name)!.helpInformation().replace(/\s+/g, " ");

describe("Qwen3.8 in the CLI", () => {
  it("pull --help lists the Qwen3.8 registry entries", () => {
    for (const name of ["qwen3.8-27b", "qwen3.8-27b-q8", "qwen3.8-27b-ud"]) expect(help("pull")).toContain(name);
  });

  it("grammar --help lists the Qwen3.8 registry entries and the stand-in", () => {
    for (const name of ["qwen3.8-27b", "synthetic:qwen3.8-tiny"]) expect(help("grammar")).toContain(name);
  });

  it("run --help offers --reasoning-effort with xhigh", () => {
    expect(help("run")).toMatch(/--reasoning-effort <level> none\|minimal\|low\|medium\|high\|xhigh/);
  });
});
