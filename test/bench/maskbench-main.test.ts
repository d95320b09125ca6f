// `npm run bench:maskbench` in chunks (each chunk a child process): a run over part of the data reports exactly
// the schemas it was given. The last chunk ran a whole chunk's worth, past the run's own end, so two runs over
// adjacent halves counted the schemas between them twice.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const MAIN = new URL("../../dist-bench/maskbench-main.js", import.meta.url).pathname;
const DATA = new URL("../fixtures/maskbench/", import.meta.url).pathname;
const run = promisify(execFile);

describe("bench:maskbench in chunks", () => {
  it("--limit 1 --chunk 2 judges one schema; --skip 1 --chunk 2 the two after it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "qtc-maskbench-main-"));
    const files = async (args: string[]) => {
      const raw = path.join(dir, "raw.json");
      await run(process.execPath, ["--expose-gc", MAIN, "--data", DATA, "--max-tokens", "512", "--raw", raw, "--out", path.join(dir, "out.json"), ...args]);
      return (JSON.parse(readFileSync(raw, "utf8")) as { file: string }[]).map((r) => r.file);
    };
    expect(await files(["--limit", "1", "--chunk", "2"])).toEqual(["Own---not.json"]);
    expect(await files(["--skip", "1", "--chunk", "2"])).toEqual(["Own---number.json", "Own---person.json"]);
  }, 120_000);
});
