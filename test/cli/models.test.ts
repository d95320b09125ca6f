// `qtc models` lists the registry (every name, its repository, file, quantization and size) and the model
// cache (each GGUF there, and which registry entry it is the download of), reading only the file system.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelListing } from "../../src/model/list-models.js";
import { quantizationOf } from "../../src/model/list-models.js";
import { MODEL_REGISTRY } from "../../src/model/registry.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-models-cmd-"));
let saved: string | undefined;
beforeAll(() => {
  saved = process.env.QTC_MODELS_DIR;
  process.env.QTC_MODELS_DIR = dir;
  writeFileSync(join(dir, "hf_Qwen_Qwen3-0.6B-Q8_0.gguf"), Buffer.alloc(1234));
  writeFileSync(join(dir, "synthetic-tiny-q8_0.gguf"), Buffer.alloc(10));
  writeFileSync(join(dir, "notes.txt"), "not a model");
});
afterAll(() => {
  if (saved === undefined) delete process.env.QTC_MODELS_DIR;
  else process.env.QTC_MODELS_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe("qtc models", () => {
  it("--json: every registry entry with repository, file and quantization; the cache's GGUFs, matched to the registry", async () => {
    const r = await runCli(["models", "--json"]);
    expect(r.code).toBe(0);
    const listing = JSON.parse(r.stdout) as ModelListing;
    expect(listing.modelsDir).toBe(dir);
    expect(listing.registry.map((m) => m.name)).toEqual(MODEL_REGISTRY.map((m) => m.name));
    const base = listing.registry.find((m) => m.name === "qwen3-0.6b")!;
    expect(base).toMatchObject({ isDefault: true, repository: "Qwen/Qwen3-0.6B-GGUF", file: "Qwen3-0.6B-Q8_0.gguf", quantization: "Q8_0", downloaded: true });
    expect(base.localPath).toBe(join(dir, "hf_Qwen_Qwen3-0.6B-Q8_0.gguf"));
    expect(listing.registry.find((m) => m.name === "qwen3-4b")).toMatchObject({ quantization: "Q4_K_M", downloaded: false });
    expect(listing.cache).toEqual([
      { file: "hf_Qwen_Qwen3-0.6B-Q8_0.gguf", path: join(dir, "hf_Qwen_Qwen3-0.6B-Q8_0.gguf"), bytes: 1234, registryName: "qwen3-0.6b" },
      { file: "synthetic-tiny-q8_0.gguf", path: join(dir, "synthetic-tiny-q8_0.gguf"), bytes: 10, registryName: null },
    ]);
  });

  it("the table names each model, its repository and whether it is downloaded, then the cache folder", async () => {
    const r = await runCli(["models"]);
    expect(r.code).toBe(0);
    for (const m of MODEL_REGISTRY) expect(r.stdout).toContain(m.name);
    expect(r.stdout).toMatch(/qwen3-0\.6b \(default\)\s+hermes\s+Q8_0\s+~639 MB\s+Qwen\/Qwen3-0\.6B-GGUF\/Qwen3-0\.6B-Q8_0\.gguf\s+downloaded/);
    expect(r.stdout).toMatch(/qwen3-4b\s+hermes\s+Q4_K_M\s+.*\s+-$/m);
    expect(r.stdout).toContain(`Model cache: ${dir}`);
    expect(r.stdout).toContain("synthetic-tiny-q8_0.gguf");
    expect(r.stdout).not.toContain("notes.txt");
  });

  it("reads the quantization from the file name", () => {
    expect(quantizationOf("Qwen3.6-35B-A3B-UD-Q4_K_M.gguf")).toBe("UD-Q4_K_M");
    expect(quantizationOf("model-f16.gguf")).toBe("F16");
    expect(quantizationOf("model.gguf")).toBeNull();
  });
});
