// Owns: a synthetic LoRA adapter GGUF for the tiny synthetic Qwen3 (random low-rank deltas on attn_q and
// attn_v of every layer), so `--lora` can be tested offline. Written in llama.cpp's adapter layout:
// general.type "adapter", adapter.type "lora", adapter.lora.alpha, and `<weight>.lora_a` [in, r] /
// `<weight>.lora_b` [r, out] tensors.

import { existsSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import path from "node:path";
import { writeGguf, type GgufTensorSpec } from "../../src/model/gguf-writer.js";
import { GGML_TYPE, encodeF32 } from "../../src/model/quantize.js";
import { QWEN3_SHAPES } from "../../src/model/qwen3-shapes.js";
import { seededRandom } from "../../src/random.js";
import { loraMetadata } from "../../src/training/lora.js";

/** Deterministic pseudo-random floats in [-scale, scale]. */
function randoms(count: number, seed: number, scale: number): Float32Array {
  const random = seededRandom(seed);
  return Float32Array.from({ length: count }, () => (random() * 2 - 1) * scale);
}

/** Write (once) a rank-4 LoRA for the tiny shape into `dir`; returns its path. */
export async function tinyLoraPath(dir: string, opts: { rank?: number; seed?: number } = {}): Promise<string> {
  const rank = opts.rank ?? 4;
  const seed = opts.seed ?? 7;
  const file = path.join(dir, `synthetic-tiny-lora-r${rank}-s${seed}.gguf`);
  if (existsSync(file)) return file;
  await mkdir(dir, { recursive: true });
  const s = QWEN3_SHAPES.tiny;
  const tensors: GgufTensorSpec[] = [];
  for (let l = 0; l < s.layers; l++) {
    for (const [name, out] of [
      ["attn_q", s.heads * s.headDim],
      ["attn_v", s.kvHeads * s.headDim],
    ] as const) {
      tensors.push({ name: `blk.${l}.${name}.weight.lora_a`, dims: [s.hidden, rank], type: GGML_TYPE.F32 });
      tensors.push({ name: `blk.${l}.${name}.weight.lora_b`, dims: [rank, out], type: GGML_TYPE.F32 });
    }
  }
  const tmp = `${file}.${process.pid}.tmp`;
  await writeGguf(
    tmp,
    loraMetadata("qwen3", rank, "qtc synthetic tiny LoRA"),
    tensors,
    function* (t) {
      const count = t.dims.reduce((a, b) => a * b, 1);
      yield encodeF32(randoms(count, seed + tensors.indexOf(t), 0.5));
    },
  );
  await rename(tmp, file);
  return file;
}
