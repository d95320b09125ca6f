// Owns: the starting point of LoRA training: an adapter GGUF llama.cpp loads with `--lora` (general.type adapter,
// adapter.type lora, adapter.lora.alpha), one `<weight>.lora_a` / `.lora_b` pair per targeted 2-D weight of every
// layer, A seeded small and random, B zero, so the untrained adapter changes nothing (LoRA's usual start).

import { readGgufFileInfo } from "node-llama-cpp";
import { fail } from "../errors.js";
import { writeGguf, type GgufEntry, type GgufTensorSpec } from "../model/gguf-writer.js";
import { GGML_TYPE } from "../model/quantize.js";
import { seededRandom } from "../random.js";

export interface LoraOptions {
  /** The adapter's rank (columns of A, rows of B). */
  rank: number;
  /** Scale numerator: the update is (alpha / rank) · B·A·x. Default: the rank (a scale of 1). */
  alpha?: number;
  /** Which weights of each layer get a pair, by the part of the name after `blk.N.`. Default: LORA_DEFAULTS.targets. */
  targets?: readonly string[];
  /** Seed of A. Default: 0. */
  seed?: number;
}

export const LORA_DEFAULTS = Object.freeze({
  /** Default: every attention and FFN projection. */
  targets: ["attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight", "ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"] as readonly string[],
  seed: 0,
  /** Largest rank accepted. Default: 1024. */
  maxRank: 1024,
});

/** The key/values llama.cpp requires of a LoRA adapter GGUF. */
export function loraMetadata(arch: string, alpha: number, name: string): GgufEntry[] {
  return [
    { key: "general.architecture", value: { type: "string", value: arch } },
    { key: "general.type", value: { type: "string", value: "adapter" } },
    { key: "general.name", value: { type: "string", value: name } },
    { key: "adapter.type", value: { type: "string", value: "lora" } },
    { key: "adapter.lora.alpha", value: { type: "f32", value: alpha } },
  ];
}

/** Write the untrained adapter for `base` at `out`; returns how many weights it targets. */
export async function writeLoraInit(base: string, out: string, opts: LoraOptions): Promise<{ weights: number; parameters: number }> {
  const rank = opts.rank;
  if (!Number.isInteger(rank) || rank < 1 || rank > LORA_DEFAULTS.maxRank) fail("invalid_option", `--lora takes a rank from 1 to ${LORA_DEFAULTS.maxRank}, got ${rank}`);
  const alpha = opts.alpha ?? rank;
  if (!(alpha > 0) || !Number.isFinite(alpha)) fail("invalid_option", `--alpha must be a positive number, got ${alpha}`);
  const info = await readGgufFileInfo(base, { readTensorInfo: true });
  const arch = String((info.metadata as { general?: { architecture?: unknown } }).general?.architecture ?? "");
  const targets = new Set(opts.targets ?? LORA_DEFAULTS.targets);
  const tensors: GgufTensorSpec[] = [];
  for (const t of info.fullTensorInfo ?? []) {
    const m = /^blk\.\d+\.(.+)$/.exec(t.name);
    const dims = t.dimensions.map(Number);
    if (!m || !targets.has(m[1]!) || dims.length !== 2) continue;
    const [nIn, nOut] = dims as [number, number];
    // llama.cpp's layout: A is [n_in, rank] (ne0 first), B is [rank, n_out]; the update is B·(A·x).
    tensors.push({ name: `${t.name}.lora_a`, dims: [nIn, rank], type: GGML_TYPE.F32 }, { name: `${t.name}.lora_b`, dims: [rank, nOut], type: GGML_TYPE.F32 });
  }
  if (tensors.length === 0) fail("unsupported_model", `${base}: no layer weight named ${[...targets].join(", ")} to put a LoRA adapter on`);
  const random = seededRandom(opts.seed ?? LORA_DEFAULTS.seed);
  await writeGguf(
    out,
    loraMetadata(arch, alpha, "qtc-lora"),
    tensors,
    function* (t) {
      const n = t.dims[0]! * t.dims[1]!;
      const buf = Buffer.alloc(n * 4);
      if (t.name.endsWith(".lora_a")) {
        // Kaiming-uniform-like, as PEFT starts A: U(-1/sqrt(n_in), 1/sqrt(n_in)).
        const bound = 1 / Math.sqrt(t.dims[0]!);
        for (let i = 0; i < n; i++) buf.writeFloatLE((random() * 2 - 1) * bound, i * 4);
      }
      yield buf;
    },
  );
  return { weights: tensors.length / 2, parameters: tensors.reduce((s, t) => s + t.dims[0]! * t.dims[1]!, 0) };
}
