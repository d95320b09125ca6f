import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { qwen35IdsNow, readSyntheticInfo } from "../../src/model/synthetic.js";
import { tinyModelPath, tinyQwen35ModelPath } from "../helpers/models.js";
import { runCli } from "../helpers/cli.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "qtc-cli-model-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const run = (...args: string[]) => runCli(args);

describe("qtc make-model --vocabulary qwen3.5", () => {
  test("writes the Qwen3.5 stand-in: its file is marked with the vocabulary, and equals the one tests use", async () => {
    const out = join(dir, "q35.gguf");
    const r = await run("make-model", "--vocabulary", "qwen3.5", "--out", out);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Qwen3.5 stand-in tiny");
    expect((await readSyntheticInfo(out))?.vocabulary).toBe("qwen3.5");
    // Which ids it carries is said, and is what the file says (real only with Qwen3.5's merges in data/qwen3.5).
    const ids = (await readSyntheticInfo(out))?.ids;
    expect(ids).toBe(qwen35IdsNow());
    expect(r.stdout).toContain(`  ids    ${ids}`);
    const sha = (f: string) => readFile(f).then((b) => createHash("sha256").update(b).digest("hex"));
    expect(await sha(out)).toBe(await sha(await tinyQwen35ModelPath()));
    expect((await readSyntheticInfo(await tinyModelPath()))?.vocabulary).toBe("qwen3");
  });
});

describe("qtc make-model", () => {
  test.each([
    ["--shape", "huge"],
    ["--dtype", "q4_k"],
    ["--seed", "-1"],
    ["--seed", "abc"],
    ["--bogus", "1"],
    ["--vocabulary", "qwen4"],
  ])("%s %s → one line on stderr, exit 2", async (flag, value) => {
    const r = await run("make-model", flag, value);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  test("writes the file and prints its path, size, sha256 and time", async () => {
    const out = join(dir, "m.gguf");
    const r = await run("make-model", "--shape", "tiny", "--dtype", "q8_0", "--seed", "0", "--out", out);
    expect(r.code).toBe(0);
    const bytes = await readFile(out);
    const sha = createHash("sha256").update(bytes).digest("hex");
    expect(sha).toBe(createHash("sha256").update(await readFile(await tinyModelPath())).digest("hex"));
    expect(r.stdout).toContain(`wrote ${out}\n`);
    expect(r.stdout).toContain(`size   ${bytes.length} bytes`);
    expect(r.stdout).toContain(`sha256 ${sha}\n`);
    expect(r.stdout).toMatch(/time {3}\d+\.\d\d s\n/);
  });
});

describe("qtc pull", () => {
  test("an unreachable mirror: one line saying what failed and how to work offline, exit 1", async () => {
    const closed = http.createServer();
    await new Promise<void>((ok) => closed.listen(0, "127.0.0.1", ok));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((ok) => closed.close(() => ok()));
    vi.stubEnv("QTC_HF_ENDPOINT", `http://127.0.0.1:${port}/`);
    vi.stubEnv("QTC_MODELS_DIR", dir);
    const r = await run("pull", "qwen3-0.6b");
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^qtc: could not download hf:Qwen\/Qwen3-0\.6B-GGUF\/Qwen3-0\.6B-Q8_0\.gguf: connection refused/);
    expect(lines[0]).toContain("--model synthetic:tiny");
  });

  test("an unknown model is exit 2", async () => {
    const r = await run("pull", "no-such-model");
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
