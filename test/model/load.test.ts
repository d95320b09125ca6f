import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QtcException } from "../../src/errors.js";
import { writeGguf } from "../../src/model/gguf-writer.js";
import { LOAD_DEFAULTS, createContext, createLlama, loadModel, openModel } from "../../src/model/load.js";
import { isSyntheticMetadata } from "../../src/model/synthetic.js";
import { tinyModelPath } from "../helpers/models.js";

let llama: Llama;
let model: LlamaModel;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "qtc-load-"));
  llama = await createLlama({ gpu: "cpu" });
  model = await loadModel(llama, { path: await tinyModelPath() });
});
afterAll(async () => {
  await model?.dispose();
  await llama?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function generate(m: LlamaModel, prompt: string, n: number, threads = 2): Promise<number[]> {
  const context = await createContext(m, { contextSize: 512, threads });
  try {
    const out: number[] = [];
    for await (const token of context.getSequence().evaluate(m.tokenize(prompt, true), { temperature: 0 })) {
      out.push(token);
      if (out.length >= n) break;
    }
    return out;
  } finally {
    await context.dispose();
  }
}

describe("the tiny synthetic model", () => {
  test("loads on the CPU and generates 16 varied tokens", async () => {
    expect(llama.gpu).toBe(false);
    const tokens = await generate(model, "<|im_start|>user\nList the files.<|im_end|>\n<|im_start|>assistant\n", 16);
    expect(tokens).toHaveLength(16);
    expect(tokens.every((t) => Number.isInteger(t) && t >= 0 && t < 151936)).toBe(true);
    expect(new Set(tokens).size).toBeGreaterThan(8); // random weights must not collapse to a constant argmax
  });

  test("greedy generation is deterministic", async () => {
    const a = await generate(model, "def main():", 8);
    const b = await generate(model, "def main():", 8);
    expect(a).toEqual(b);
  });

  test("the context gets exactly the size and threads asked for", async () => {
    const context = await createContext(model, { contextSize: 512, threads: 1, sequences: 2 });
    try {
      expect(context.contextSize).toBe(512);
      expect(context.currentThreads).toBe(1);
      expect(context.totalSequences).toBe(2);
    } finally {
      await context.dispose();
    }
  });

  test("the loaded model's metadata says it is synthetic", () => {
    expect(isSyntheticMetadata(model.fileInfo.metadata)).toBe(true);
  });
});

describe("defaults", () => {
  test("context 4096, 1 to 4 threads, gpu auto, quiet logs", () => {
    expect(LOAD_DEFAULTS.contextSize).toBe(4096);
    expect(LOAD_DEFAULTS.threads).toBeGreaterThanOrEqual(1);
    expect(LOAD_DEFAULTS.threads).toBeLessThanOrEqual(4);
    expect(LOAD_DEFAULTS.gpu).toBe("auto");
    expect(LOAD_DEFAULTS.logLevel).toBe("error");
  });

  test('gpu "auto" starts without building anything, and openModel applies the settings', async () => {
    const opened = await openModel("synthetic:tiny", { gpu: "auto", contextSize: 512, threads: 2 });
    try {
      expect(opened.resolved).toMatchObject({ source: "synthetic", synthetic: true, name: "qtc-synthetic-tiny", path: await tinyModelPath() });
      expect(opened.settings).toMatchObject({ contextSize: 512, threads: 2, sequences: 1 });
      expect(opened.settings.gpu).toBe(opened.llama.gpu);
    } finally {
      await opened.dispose();
    }
  });
});

describe("errors", () => {
  const codeOf = async (p: Promise<unknown>): Promise<[string, number] | null> => {
    try {
      await p;
      return null;
    } catch (e) {
      return e instanceof QtcException ? [e.code, e.exitCode] : ["not a QtcException", -1];
    }
  };

  test("a missing file is model_not_found (exit 2)", async () => {
    expect(await codeOf(loadModel(llama, { path: join(dir, "nope.gguf") }))).toEqual(["model_not_found", 2]);
  });

  test("a file llama.cpp cannot load is model_load_failed (exit 1)", async () => {
    const bad = join(dir, "bad.gguf"); // a valid GGUF header that declares qwen3 but holds no tensors
    await writeGguf(bad, [{ key: "general.architecture", value: { type: "string", value: "qwen3" } }], [], () => []);
    expect(await codeOf(loadModel(llama, { path: bad }))).toEqual(["model_load_failed", 1]);
  });
});
