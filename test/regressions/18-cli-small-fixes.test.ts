// Issue 18, items 8 and 12 (the CLI's parts): `qtc pull`'s offline error advised `--model PATH`, which pull does
// not take; `make-model` overwrote an existing file without a word; `-m` was not a short flag for `--model`.

import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { mkdtempSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/cli.js";
import { OFFLINE_HINT, PULL_OFFLINE_HINT } from "../../src/model/download.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-18-small-"));

/** A 127.0.0.1 port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("qtc pull offline", () => {
  const saved = { endpoint: process.env.QTC_HF_ENDPOINT, models: process.env.QTC_MODELS_DIR };
  afterEach(() => {
    for (const [key, value] of [["QTC_HF_ENDPOINT", saved.endpoint], ["QTC_MODELS_DIR", saved.models]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it("fails in one line, exit 1, with advice for pull rather than the --model hint", async () => {
    process.env.QTC_HF_ENDPOINT = `http://127.0.0.1:${await closedPort()}/`;
    process.env.QTC_MODELS_DIR = join(dir, "pull-models");
    const r = await runCli(["pull", "hf:qtc-test/Tiny-GGUF/good-tiny.gguf"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(PULL_OFFLINE_HINT);
    expect(r.stderr).not.toContain(OFFLINE_HINT);
    expect(r.stderr).not.toMatch(/pass --model/);
  });
});

describe("qtc make-model", () => {
  it("refuses to overwrite an existing file (exit 2, file untouched); --force overwrites it", { timeout: 60_000 }, async () => {
    const out = join(dir, "existing.gguf");
    writeFileSync(out, "keep me");
    const before = statSync(out).mtimeMs;
    const refused = await runCli(["make-model", "--shape", "tiny", "--out", out]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(out, "utf8")).toBe("keep me");
    expect(statSync(out).mtimeMs).toBe(before);

    const forced = await runCli(["make-model", "--shape", "tiny", "--out", out, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(out).subarray(0, 4).toString()).toBe("GGUF");
  });
});

describe("-m, the short flag for --model", () => {
  for (const name of ["run", "agent", "bench", "grammar", "chat", "serve"]) {
    it(`${name} takes -m as --model`, () => {
      const option = buildProgram().commands.find((c) => c.name() === name)!.options.find((o) => o.long === "--model");
      expect(option?.short).toBe("-m");
    });
  }

  it("qtc run -m reaches the model resolver", async () => {
    const r = await runCli(["run", "-m", "synthetic:huge", "--prompt", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qtc: .*synthetic/);
  });
});
