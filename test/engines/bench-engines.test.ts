// `qtc bench --model synthetic:tiny --model llama-server:URL --tasks 3 --seeds 1` (in process, a real
// llama-server with the same tiny model): one report with both engines' rows, with and without the grammar.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { BenchReport } from "../../src/bench/types.js";
import { main } from "../../src/cli/cli.js";
import { makeTmp } from "../bench/helpers.js";
import { startLlamaServer, type LlamaServerProcess } from "./llama-server-helper.js";

async function qtc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => ((stdout += String(chunk)), true));
  const errw = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => ((stderr += String(chunk)), true));
  const before = process.exitCode;
  try {
    const code = await main(["node", "qtc", "bench", ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    errw.mockRestore();
    process.exitCode = before;
  }
}

describe("qtc bench across engines", () => {
  let server: LlamaServerProcess;
  let root: string;
  beforeAll(async () => {
    server = await startLlamaServer({ slots: 1, threads: 1 });
    root = await makeTmp();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("one report holds both engines' rows, unconstrained and constrained", async () => {
    const out = path.join(root, "report");
    const r = await qtc("--model", "synthetic:tiny", "--model", `llama-server:${server.url}`, "--tasks", "3", "--seeds", "1", "--constrained", "--max-turns", "2", "--max-tokens", "128", "--threads", "1", "--out", out);
    expect(r.stderr.split("\n").filter((l) => /error/i.test(l) && !/\d+\/\d+ blocks/.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    const report = JSON.parse(await fs.readFile(path.join(out, "report.json"), "utf8")) as BenchReport;
    const rows = report.rows;
    const keys = rows.map((row) => `${row.model.startsWith("llama-server") ? "llama-server" : "local"} ${row.mode}`).sort();
    expect(keys).toEqual(["llama-server constrained", "llama-server unconstrained", "local constrained", "local unconstrained"]);
    for (const row of rows) expect([row.runs, row.runsErrored]).toEqual([3, 0]);
    // The grammar holds on both engines: every constrained block is valid.
    for (const row of rows.filter((x) => x.mode === "constrained")) expect(row.validBlocks).toBe(row.blocks);
    console.log(JSON.stringify(rows));
  }, 1_200_000);
});
