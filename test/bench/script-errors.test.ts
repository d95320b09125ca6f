// A bench script that fails on what it was asked (a tool list whose prompt outgrows the context) ends with one line
// naming the script and the problem and a non-zero exit, never a stack trace.

import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SPEED = new URL("../../dist-bench/decode-speed.js", import.meta.url).pathname;

function run(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SPEED, ...args], (error, _stdout, stderr) => resolve({ code: typeof error?.code === "number" ? error.code : 0, stderr }));
  });
}

describe("bench script failures", () => {
  it("bench:speed with 26 tools in a 2,048-token context: one line, exit 2", async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), "qtc-speed-")), "speed.json");
    const r = await run(["--model", "synthetic:tiny", "--threads", "1", "--rounds", "1", "--tools", "26", "--tool-choice", "required", "--max-tokens", "64", "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qtc bench:speed: the prompt \(\d+ tokens\) plus maxTokens \(\d+\) exceeds the context size \(2048\)\n$/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});
