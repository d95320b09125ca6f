// `qtc bench --model vllm:URL --model sglang:URL --constrained` against the fake servers that constrain with
// xgrammar itself (./fake-xgrammar-server.ts): one report with both engines' rows; every constrained block valid.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { BenchReport } from "../../src/bench/types.js";
import { main } from "../../src/cli/cli.js";
import { XgrammarSession } from "../../src/engines/xgrammar-check.js";
import { makeTmp } from "../bench/helpers.js";
import { startFakeXgrammarServer, type FakeXgrammarServer } from "./fake-xgrammar-server.js";

async function qtc(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const errw = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => ((stderr += String(chunk)), true));
  const before = process.exitCode;
  try {
    return { code: await main(["node", "qtc", "bench", ...args]), stderr };
  } finally {
    out.mockRestore();
    errw.mockRestore();
    process.exitCode = before;
  }
}

describe("qtc bench over vLLM and SGLang (fake servers running xgrammar)", () => {
  let session: XgrammarSession;
  let vllm: FakeXgrammarServer;
  let sglang: FakeXgrammarServer;
  let root: string;
  beforeAll(async () => {
    session = await XgrammarSession.create();
    vllm = await startFakeXgrammarServer("vllm", { session });
    sglang = await startFakeXgrammarServer("sglang", { session });
    root = await makeTmp();
  }, 60_000);
  afterAll(async () => {
    await vllm?.close();
    await sglang?.close();
    session?.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("one report holds both engines' rows; every constrained block is valid", async () => {
    const out = path.join(root, "report");
    const r = await qtc("--model", `vllm:${vllm.url}`, "--model", `sglang:${sglang.url}`, "--tasks", "3", "--seeds", "1", "--constrained", "--max-turns", "2", "--max-tokens", "256", "--out", out);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(await fs.readFile(path.join(out, "report.json"), "utf8")) as BenchReport;
    const keys = report.rows.map((row) => `${row.model.split(/[:-]/)[0]} ${row.mode}`).sort();
    expect(keys).toEqual(["sglang constrained", "sglang unconstrained", "vllm constrained", "vllm unconstrained"]);
    for (const row of report.rows.filter((x) => x.mode === "constrained")) {
      expect(row.blocks, row.model).toBeGreaterThan(0);
      expect(row.validBlocks, row.model).toBe(row.blocks);
    }
    console.log(JSON.stringify(report.rows.map((x) => ({ model: x.model, mode: x.mode, runs: x.runs, errored: x.runsErrored, blocks: x.blocks, valid: x.validBlocks }))));
  }, 600_000);
});
