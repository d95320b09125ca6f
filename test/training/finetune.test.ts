// Builds the native trainer against the llama.cpp build and runs a few training steps on the synthetic tiny
// model (F32): progress lines parse, the loss is over assistant tokens only, training reaches every attention
// weight, a non-F32 model is refused.

import { closeSync, openSync, promises as fs, readSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { readGgufPrefix } from "../../src/model/gguf-header.js";
import { QWEN3_SHAPES } from "../../src/model/qwen3-shapes.js";
import { ensureSyntheticModel } from "../../src/model/synthetic.js";
import { tinyModelPath } from "../helpers/models.js";
import { buildTrainer, demonstrate, finetune, parseProgressFields, type Conversation, type TrainProgress } from "../../src/training/index.js";

let dir: string;
let data: Conversation[];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-ft-"));
  data = [await demonstrate(path.resolve("bench/tasks/fizzbuzz"))];
}, 60_000);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("progress lines", () => {
  it("parse as key=value, the message taking the rest of the line", () => {
    expect(parseProgressFields("epoch=1/2 loss=3.5 acc=0.1")).toEqual({ epoch: "1/2", loss: "3.5", acc: "0.1" });
    expect(parseProgressFields("code=unsupported_model message=x is not F32 (general.file_type=7)")).toEqual({
      code: "unsupported_model",
      message: "x is not F32 (general.file_type=7)",
    });
  });
});

describe("qtc finetune through the native driver", () => {
  it("builds once (cached by source hash) and trains a few steps, loss on assistant tokens only", async () => {
    const bin = await buildTrainer();
    const stat = await fs.stat(bin);
    expect(await buildTrainer()).toBe(bin);
    expect((await fs.stat(bin)).mtimeMs).toBe(stat.mtimeMs);

    const events: TrainProgress[] = [];
    const out = path.join(dir, "tuned.gguf");
    const r = await finetune({ model: "synthetic:tiny", data, out, contextSize: 256, maxSteps: 2, onProgress: (p) => events.push(p) });
    const start = events.find((e) => e.kind === "start")!.fields;
    expect(Number(start.trained)).toBeGreaterThan(0);
    expect(Number(start.trained)).toBeLessThan(Number(start.tokens) / 4); // the prompt is masked out
    expect(r.epochs).toHaveLength(1);
    expect(Number.isFinite(r.epochs[0]!.loss) && r.epochs[0]!.loss > 0).toBe(true);
    expect(events.filter((e) => e.kind === "step").length).toBeGreaterThan(0);
    const written = await fs.stat(out);
    expect(written.size).toBeGreaterThan(1_000_000);
    // llama_opt_init shrinks the training context to the window; the tuned model keeps the base's (else every
    // later context is clamped to 256 tokens and a bench prompt is refused)
    expect((await readGgufPrefix(out))?.scalars.get("qwen3.context_length")).toBe(QWEN3_SHAPES.tiny.contextLength);
  }, 240_000);

  it("trains attention's K and V weights, not only Q and the FFN (llama.cpp's KV cache carries no gradient)", async () => {
    const base = await ensureSyntheticModel("tiny", { dtype: "f32" });
    const out = path.join(dir, "kv.gguf");
    await finetune({ model: "synthetic:tiny", data, out, contextSize: 256, maxSteps: 2, lr: 4e-3 });
    for (const name of ["blk.0.attn_q.weight", "blk.0.attn_k.weight", "blk.0.attn_v.weight", "blk.1.attn_k_norm.weight"]) {
      const [before, after] = [await readF32Tensor(base, name), await readF32Tensor(out, name)];
      expect(after.length, name).toBe(before.length);
      expect(after.some((v, i) => v !== before[i]), `${name} changed`).toBe(true);
    }
  }, 240_000);

  it("packs short windows into llama.cpp's 256-token context, one optimizer step each, with a decaying rate", async () => {
    const events: TrainProgress[] = [];
    const out = path.join(dir, "packed.gguf");
    // 3 windows of 64 tokens fill one data point of 256 with a masked pad window: 4 ubatch steps.
    const r = await finetune({ model: "synthetic:tiny", data, out, contextSize: 64, maxSteps: 3, lr: 4e-3, lrEnd: 2e-4, onProgress: (p) => events.push(p) });
    const steps = events.filter((e) => e.kind === "step").map((e) => e.fields.step!);
    expect(steps.at(-1)).toBe("4/4");
    expect(Number.isFinite(r.epochs[0]!.loss) && r.epochs[0]!.loss > 0).toBe(true);
    expect((await fs.stat(out)).size).toBeGreaterThan(1_000_000);
  }, 240_000);

  it("refuses a model that is not F32 with unsupported_model", async () => {
    const err = await finetune({ model: await tinyModelPath(), data, out: path.join(dir, "x.gguf"), contextSize: 256, maxSteps: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QtcException);
    expect((err as QtcException).code).toBe("unsupported_model");
    await expect(fs.stat(path.join(dir, "x.gguf"))).rejects.toThrow();
  }, 120_000);
});

/** One F32 tensor's values, read from the file at the offset the GGUF header gives. */
async function readF32Tensor(file: string, name: string): Promise<Float32Array> {
  const info = await readGgufFileInfo(file, { readTensorInfo: true });
  const t = (info.fullTensorInfo ?? info.tensorInfo ?? []).find((x) => x.name === name);
  if (!t) throw new Error(`${file} has no tensor ${name}`);
  const n = t.dimensions.reduce((a: number, b) => a * Number(b), 1);
  const bytes = Buffer.alloc(n * 4);
  const fd = openSync(file, "r");
  try {
    readSync(fd, bytes, 0, bytes.length, Number(t.fileOffset));
  } finally {
    closeSync(fd);
  }
  return new Float32Array(bytes.buffer, bytes.byteOffset, n);
}
