import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeGguf } from "../../src/model/gguf-writer.js";
import { DEFAULT_MODEL, MODEL_REGISTRY, findRegistryModel } from "../../src/model/registry.js";
import { resolveModel } from "../../src/model/resolve.js";
import { tinyModelPath } from "../helpers/models.js";
import { qtcFailure } from "../helpers/errors.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "qtc-resolve-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const failure = qtcFailure;

describe("resolveModel", () => {
  test("synthetic:tiny is the model cached in the models dir, marked synthetic", async () => {
    const r = await resolveModel("synthetic:tiny");
    expect(r).toEqual({ path: await tinyModelPath(), name: "qtc-synthetic-tiny", synthetic: true, source: "synthetic", format: "hermes" });
  });

  test("a file path resolves to an absolute path; a synthetic file says so", async () => {
    const tiny = await tinyModelPath();
    const r = await resolveModel(relative(process.cwd(), tiny));
    expect(r).toEqual({ path: tiny, name: "qtc-synthetic-tiny", synthetic: true, source: "file" });
    const plain = join(dir, "My-Model.Q4.gguf");
    await writeGguf(plain, [{ key: "general.architecture", value: { type: "string", value: "qwen3" } }], [], () => []);
    expect(await resolveModel(plain)).toEqual({ path: plain, name: "My-Model.Q4", synthetic: false, source: "file" });
  });

  test("errors are model_not_found (exit 2): missing file, unknown name, unknown scheme, unknown shape", async () => {
    for (const spec of [join(dir, "missing.gguf"), "qwen9-huge", "replay:some-run", "ollama:qwen3", "synthetic:huge"]) {
      const e = await failure(resolveModel(spec, { modelsDir: join(dir, "models"), download: false }));
      expect([spec, e.code, e.exitCode]).toEqual([spec, "model_not_found", 2]);
    }
  });
});

describe("registry", () => {
  test("the default is qwen3-0.6b, the official Qwen Q8_0 GGUF", () => {
    expect(DEFAULT_MODEL).toBe("qwen3-0.6b");
    expect(findRegistryModel("Qwen3-0.6B")?.uri).toBe("hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf");
  });

  test("1.7B, 4B, a Qwen3-Coder entry in the XML format, the Qwen3.5 entries in qwen35, Qwen3.6 in qwen36, Qwen3.8 in qwen38", () => {
    expect(MODEL_REGISTRY.map((m) => [m.name, m.format])).toEqual([
      ["qwen3-0.6b", "hermes"],
      ["qwen3-1.7b", "hermes"],
      ["qwen3-4b", "hermes"],
      ["qwen3-coder-30b-a3b", "qwen3coder"],
      ["qwen3.5-0.8b", "qwen35"],
      ["qwen3.5-2b", "qwen35"],
      ["qwen3.5-4b", "qwen35"],
      ["qwen3.6-35b-a3b", "qwen36"],
      ["qwen3.8-27b", "qwen38"],
      ["qwen3.8-27b-q8", "qwen38"],
      ["qwen3.8-27b-ud", "qwen38"],
    ]);
    for (const m of MODEL_REGISTRY) expect(m.uri).toMatch(/^hf:[^/]+\/[^/]+-GGUF\/[^/]+\.gguf$/);
  });
});

describe("names users already type (issue 18)", () => {
  test("node-llama-cpp's hf:<user>/<repo>:<quant> and Ollama's tags name the registry entries, in any case", () => {
    const cases: [string, string][] = [
      ["hf:Qwen/Qwen3-0.6B-GGUF:Q8_0", "qwen3-0.6b"],
      ["hf:qwen/qwen3-0.6b-gguf:q8_0", "qwen3-0.6b"],
      ["qwen3:0.6b", "qwen3-0.6b"],
      ["Qwen3:0.6B", "qwen3-0.6b"],
      ["hf:Qwen/Qwen3-1.7B-GGUF:Q8_0", "qwen3-1.7b"],
      ["qwen3:1.7b", "qwen3-1.7b"],
      ["hf:Qwen/Qwen3-4B-GGUF:Q4_K_M", "qwen3-4b"],
      ["qwen3:4b", "qwen3-4b"],
      ["hf:unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M", "qwen3-coder-30b-a3b"],
      ["qwen3-coder:30b", "qwen3-coder-30b-a3b"],
      ["hf:unsloth/Qwen3.5-0.8B-GGUF:Q4_K_M", "qwen3.5-0.8b"],
      ["qwen3.5:0.8b", "qwen3.5-0.8b"],
      ["qwen3.5:2b", "qwen3.5-2b"],
      ["Qwen3.5:4B", "qwen3.5-4b"],
    ];
    expect(cases.map(([spec]) => [spec, findRegistryModel(spec)?.name])).toEqual(cases);
  });

  test("an alias resolves to the entry's file, name and format (no download when it is there)", async () => {
    const models = join(dir, "alias-models");
    await mkdir(models, { recursive: true });
    const file = join(models, "hf_Qwen_Qwen3-0.6B-Q8_0.gguf");
    await writeGguf(file, [{ key: "general.architecture", value: { type: "string", value: "qwen3" } }], [], () => []);
    for (const spec of ["hf:Qwen/Qwen3-0.6B-GGUF:Q8_0", "qwen3:0.6b"]) {
      expect(await resolveModel(spec, { modelsDir: models, download: false })).toEqual({
        path: file,
        name: "qwen3-0.6b",
        synthetic: false,
        source: "registry",
        format: "hermes",
        uri: "hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf",
      });
    }
  });

  test("an alias form naming no entry is model_not_found (exit 2), before any download", async () => {
    for (const spec of ["hf:Qwen/Qwen3-0.6B-GGUF:Q4_0", "hf:someone/Other-GGUF:Q8_0", "qwen3:8b", "llama3:8b"]) {
      const e = await failure(resolveModel(spec, { modelsDir: join(dir, "models") }));
      expect([spec, e.code, e.exitCode]).toEqual([spec, "model_not_found", 2]);
    }
  });
});
