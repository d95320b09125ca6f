// `qtc serve` upstream flags through the CLI (in process): bad combinations exit 2 with one line, before
// anything listens or connects.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/cli.js";

async function qtc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => ((stdout += String(chunk)), true));
  const errw = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => ((stderr += String(chunk)), true));
  const before = process.exitCode;
  try {
    return { code: await main(["node", "qtc", "serve", ...args]), stdout, stderr };
  } finally {
    out.mockRestore();
    errw.mockRestore();
    process.exitCode = before;
  }
}

describe("qtc serve --upstream flags", () => {
  const cases: [string, string[]][] = [
    ["both --model and --upstream", ["--model", "synthetic:tiny", "--upstream", "http://127.0.0.1:9", "--port", "0"]],
    ["an unknown --upstream-kind", ["--upstream", "http://127.0.0.1:9", "--upstream-kind", "tgi", "--port", "0"]],
    ["an upstream that is not a URL", ["--upstream", "not a url", "--port", "0"]],
    ["an upstream that is not http", ["--upstream", "ftp://127.0.0.1:9", "--port", "0"]],
  ];
  for (const [what, args] of cases) {
    it(what, async () => {
      const r = await qtc(...args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it("neither --model nor --upstream: the README's default model, qwen3-0.6b (fetched when missing)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "qtc-serve-default-"));
    const env = { QTC_MODELS_DIR: process.env.QTC_MODELS_DIR, QTC_HF_ENDPOINT: process.env.QTC_HF_ENDPOINT };
    process.env.QTC_MODELS_DIR = dir;
    process.env.QTC_HF_ENDPOINT = "http://127.0.0.1:9";
    try {
      const r = await qtc("--port", "0");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Qwen3-0.6B-GGUF");
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an upstream nobody listens on: one line, exit 1 (upstream_unavailable), no stack", async () => {
    const r = await qtc("--upstream", "http://127.0.0.1:9", "--port", "0");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
