// `npm run bench:model-fixes` on a machine without the llama.cpp build (the trainer links against it): one line that
// says to run `npm run llama:build`, exit 1, never a stack trace; a bad flag is one line and exit 2.

import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const MAIN = new URL("../../dist-bench/model-fixes-main.js", import.meta.url).pathname;
const run = promisify(execFile);

async function bench(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  try {
    const r = await run(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stderr: r.stderr };
  } catch (e) {
    const failure = e as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
}

describe("bench:model-fixes entry point", () => {
  it("without a llama.cpp build: one line naming npm run llama:build, exit 1, no stack", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "qtc-no-llama-"));
    const out = path.join(empty, "out");
    const r = await bench(["--models", "synthetic:tiny-tuned", "--no-bfcl", "--out", out], { QTC_LLAMA_DIR: empty });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^bench:model-fixes: llama\.cpp's shared libraries are not in .*; run npm run llama:build first$/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("an unknown model: one line listing the choices, exit 2", async () => {
    const r = await bench(["--models", "synthetic:nope"], {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^bench:model-fixes: unknown model synthetic:nope; choose from synthetic:tiny/);
  });

  it("an unknown flag (a typo of --bfcl-data): one line naming the flags, exit 2, before any training", async () => {
    const r = await bench(["--bfcl-dat", "/nowhere"], {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")[0]).toMatch(/^bench:model-fixes: Unknown option '--bfcl-dat'/);
    expect(r.stderr).toMatch(/--bfcl-data VALUE/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
