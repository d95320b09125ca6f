// LoRA training through the native driver (qtc finetune --lora): the untrained adapter is A random, B zero; two
// steps change only the adapter (the base file stays byte for byte, B moves off zero, the loss falls);
// the trained adapter loads in qtc's runtime and in llama-server and changes what the model writes.

import { createHash } from "node:crypto";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type GenerateRequest } from "../../src/index.js";
import { ensureSyntheticModel } from "../../src/model/synthetic.js";
import { demonstrate, finetune, type Conversation, type TrainProgress } from "../../src/training/index.js";
import { LORA_DEFAULTS, writeLoraInit } from "../../src/training/lora.js";
import { startLlamaServer } from "../engines/llama-server-helper.js";
import { runCli } from "../helpers/cli.js";
import { qtcFailure } from "../helpers/errors.js";
import { tinyModelPath } from "../helpers/models.js";
import { readF32 } from "../helpers/gguf-tensors.js";

let dir: string;
let data: Conversation[];
let base: string;
let adapter: string;
const steps: TrainProgress[] = [];
const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-lora-"));
  data = [await demonstrate(path.resolve("bench/tasks/fizzbuzz"))];
  base = await ensureSyntheticModel("tiny", { dtype: "f32" });
  adapter = path.join(dir, "adapter.gguf");
}, 60_000);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("the untrained adapter", () => {
  it("pairs every targeted weight of every layer: A [n_in, rank] random, B [rank, n_out] zero", async () => {
    const init = path.join(dir, "init.gguf");
    const r = await writeLoraInit(base, init, { rank: 4, alpha: 8 });
    const info = await readGgufFileInfo(init, { readTensorInfo: true });
    expect(r.weights).toBe(2 * LORA_DEFAULTS.targets.length); // the tiny model has 2 layers
    const a = info.fullTensorInfo!.find((t) => t.name === "blk.0.attn_q.weight.lora_a")!;
    const b = info.fullTensorInfo!.find((t) => t.name === "blk.0.ffn_down.weight.lora_b")!;
    expect([a.dimensions.map(Number), b.dimensions.map(Number)]).toEqual([[64, 4], [4, 64]]);
    expect(readF32(init, "blk.0.ffn_down.weight.lora_b").every((x) => x === 0)).toBe(true);
    expect(readF32(init, "blk.0.attn_q.weight.lora_a").some((x) => x !== 0)).toBe(true);
    expect((info.metadata as unknown as { adapter: { type: string; lora: { alpha: number } } }).adapter).toEqual({ type: "lora", lora: { alpha: 8 } });
    expect((await qtcFailure(writeLoraInit(base, init, { rank: 0 }))).code).toBe("invalid_option");
  });
});

describe("qtc finetune --lora", () => {
  it("trains only the adapter: the base is unchanged, B moves off zero, the loss falls", async () => {
    const before = sha(base);
    await finetune({ model: "synthetic:tiny", data, out: adapter, contextSize: 256, maxSteps: 2, epochs: 2, lr: 0.01, lora: { rank: 8, alpha: 16 }, onProgress: (p) => steps.push(p) });
    expect(sha(base)).toBe(before);
    const epochs = steps.filter((p) => p.kind === "epoch").map((p) => Number(p.fields.loss));
    expect(epochs).toHaveLength(2);
    expect(epochs[1]!).toBeLessThan(epochs[0]!);
    const info = await readGgufFileInfo(adapter, { readTensorInfo: true });
    expect(info.fullTensorInfo!.length).toBe(4 * LORA_DEFAULTS.targets.length);
    expect(readF32(adapter, "blk.1.ffn_down.weight.lora_b").some((x) => x !== 0)).toBe(true);
  }, 240_000);

  // The LoRA stand-in trains in stages, each from the adapter the one before wrote (lora.from). One step at a
  // negligible rate from the trained adapter keeps its B; the same step from a fresh init leaves B near zero.
  it("continues from a trained adapter (lora.from): its B carries over, a fresh init starts B at zero", async () => {
    const trainedB = readF32(adapter, "blk.1.ffn_down.weight.lora_b");
    const [cont, fresh] = [path.join(dir, "continued.gguf"), path.join(dir, "fresh.gguf")];
    const step = { model: "synthetic:tiny", data, contextSize: 256, maxSteps: 1, epochs: 1, lr: 1e-9 };
    await finetune({ ...step, out: cont, lora: { rank: 8, alpha: 16, from: adapter } });
    await finetune({ ...step, out: fresh, lora: { rank: 8, alpha: 16 } });
    const maxAbs = (xs: Float32Array | number[]) => Math.max(...Array.from(xs, Math.abs));
    const continued = readF32(cont, "blk.1.ffn_down.weight.lora_b");
    expect(maxAbs(Array.from(continued, (x, i) => x - trainedB[i]!))).toBeLessThan(1e-6);
    expect(maxAbs(trainedB)).toBeGreaterThan(1e-4);
    expect(maxAbs(readF32(fresh, "blk.1.ffn_down.weight.lora_b"))).toBeLessThan(1e-6);
  }, 240_000);

  it("refuses a quantized base with unsupported_model (llama.cpp's backward through it aborts)", async () => {
    const e = await qtcFailure(finetune({ model: await tinyModelPath(), data, out: path.join(dir, "q.gguf"), contextSize: 256, maxSteps: 1, lora: { rank: 4 } }));
    expect(e.code).toBe("unsupported_model");
  }, 120_000);

  it("loads in qtc's runtime, on the F32 base and on the Q8_0 one, and changes the output", async () => {
    const req: GenerateRequest = { messages: [{ role: "user", content: "Run the tests." }], mode: "unconstrained", maxTokens: 16, seed: 3, temperature: 0 };
    for (const model of [base, await tinyModelPath()]) {
      const plain = await createRuntime({ model, threads: 1, contextSize: 512 });
      const tuned = await createRuntime({ model, threads: 1, contextSize: 512, lora: adapter });
      try {
        const [a, b] = [await plain.generate(req), await tuned.generate(req)];
        expect(tuned.settings.lora).toBe(adapter);
        expect(b.tokens).not.toEqual(a.tokens);
      } finally {
        await plain.close();
        await tuned.close();
      }
    }
  }, 120_000);

  // README: qtc finetune --model synthetic:tiny --data data/train.jsonl --out adapter.gguf --lora 8 --alpha 16, then
  // qtc run --model synthetic:tiny --lora adapter.gguf --prompt "Run the tests." (run here with one short epoch).
  it("qtc finetune --lora writes an adapter, qtc run --lora applies it, and a missing adapter is a one-line error", async () => {
    await fs.mkdir(path.join(dir, "data"), { recursive: true });
    const jsonl = path.join(dir, "data/train.jsonl");
    await fs.writeFile(jsonl, data.map((c) => JSON.stringify(c)).join("\n") + "\n");
    const cliAdapter = path.join(dir, "cli", "adapter.gguf");
    const ft = await runCli(["finetune", "--model", "synthetic:tiny", "--data", jsonl, "--out", cliAdapter, "--lora", "8", "--alpha", "16", "--ctx", "256", "--max-steps", "1"]);
    expect([ft.code, ft.stdout]).toEqual([0, expect.stringContaining("adapter.gguf")]);
    expect((await readGgufFileInfo(cliAdapter, { readTensorInfo: true })).fullTensorInfo!.length).toBe(4 * LORA_DEFAULTS.targets.length);
    const noRank = await runCli(["finetune", "--model", "synthetic:tiny", "--data", jsonl, "--out", cliAdapter, "--alpha", "16"]);
    expect(noRank.code).toBe(2);

    const args = ["run", "--model", "synthetic:tiny", "--prompt", "Run the tests.", "--mode", "unconstrained", "--temperature", "0", "--max-tokens", "8", "--threads", "1", "--context-size", "512", "--json"];
    const [plain, tuned] = [await runCli(args), await runCli([...args, "--lora", adapter])];
    expect([plain.code, tuned.code]).toEqual([0, 0]);
    expect(JSON.parse(tuned.stdout).raw).not.toBe(JSON.parse(plain.stdout).raw);
    const missing = await runCli([...args, "--lora", path.join(dir, "none.gguf")]);
    expect([missing.code, missing.stderr.trim().split("\n")]).toEqual([2, [expect.stringContaining("none.gguf")]]);
  }, 120_000);

  it("loads in llama-server (--lora) on the F32 base, and scale 0 gives back the base's output", async () => {
    // The F32 base: this machine's native llama-server build stops with SIGILL on the Q8_0 one (its AMX path).
    const server = await startLlamaServer({ model: base, slots: 1, contextSize: 1024, extraArgs: ["--lora", adapter] });
    try {
      const adapters = (await (await fetch(`${server.url}/lora-adapters`)).json()) as { id: number; path: string; scale: number }[];
      expect(adapters).toEqual([expect.objectContaining({ id: 0, path: adapter, scale: 1 })]);
      const complete = async (scale: number) => {
        const body = { prompt: "<|im_start|>user\nRun the tests.<|im_end|>\n<|im_start|>assistant\n", n_predict: 12, temperature: 0, seed: 3, lora: [{ id: 0, scale }], return_tokens: true };
        const r = (await (await fetch(`${server.url}/completion`, { method: "POST", body: JSON.stringify(body) })).json()) as { tokens: number[] };
        return r.tokens;
      };
      const [on, off, offAgain] = [await complete(1), await complete(0), await complete(0)];
      expect(off).toEqual(offAgain);
      expect(on).not.toEqual(off);
    } finally {
      await server.stop();
    }
  }, 240_000);
});
