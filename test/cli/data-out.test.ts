// `qtc data --out` never writes into a folder the package ships: from a clone, `--out data/` named the tracked
// data/ folder (Qwen3.5's tokenizer data lives there) and wrote train.jsonl beside it.

import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";
import { runCli } from "../helpers/cli.js";

const root = packageRoot();
const scratch = mkdtempSync(join(tmpdir(), "qtc-data-out-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("qtc data --out", () => {
  for (const out of ["data", "data/", "data/sub", "docs", "bench/tasks/new"]) {
    it(`refuses ${out} inside the package, with one line and exit 2, writing nothing`, async () => {
      const before = existsSync(join(root, out)) ? readdirSync(join(root, out)).sort() : null;
      const cwd = process.cwd();
      process.chdir(root);
      try {
        const r = await runCli(["data", "--out", out]);
        expect(r.code).toBe(2);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toContain("which the package ships");
      } finally {
        process.chdir(cwd);
      }
      expect(existsSync(join(root, out)) ? readdirSync(join(root, out)).sort() : null).toEqual(before);
    });
  }

  it("writes a folder of the user's own (bench/results is not shipped, nor is any other folder)", async () => {
    const out = join(scratch, "train-data");
    const r = await runCli(["data", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["summary.json", "train.jsonl", "train.rendered.jsonl"]);
  }, 120_000);
});
