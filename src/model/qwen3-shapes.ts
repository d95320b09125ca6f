// Owns: the hyper-parameters of the synthetic Qwen3 shapes (tiny, and the real Qwen3-0.6B dimensions) and the
// per-layer tensor list llama.cpp's qwen3 architecture expects.

import type { GgufTensorSpec } from "./gguf-writer.js";
import { GGML_TYPE, type GgmlType } from "./quantize.js";

export const SHAPES = ["tiny", "0.6b"] as const;
export type ShapeName = (typeof SHAPES)[number];

/** Qwen3 hyper-parameters, as written under the `qwen3.*` GGUF keys. */
export interface Qwen3Shape {
  /** `qwen3.embedding_length`. */
  hidden: number;
  /** `qwen3.block_count`. */
  layers: number;
  /** `qwen3.attention.head_count`. */
  heads: number;
  /** `qwen3.attention.head_count_kv`. */
  kvHeads: number;
  /** `qwen3.attention.key_length` and `value_length`. */
  headDim: number;
  /** `qwen3.feed_forward_length`. */
  ffn: number;
  /** `qwen3.context_length` (the trained context; qtc never allocates all of it by default). */
  contextLength: number;
  /** `qwen3.rope.freq_base`. */
  ropeTheta: number;
  /** `qwen3.attention.layer_norm_rms_epsilon`. */
  rmsEps: number;
}

/**
 * The shapes. `0.6b` has Qwen3-0.6B's real dimensions (so speed matches the real model); `tiny` keeps the same
 * vocabulary and ratios (2 query heads per KV head, head dim 32) but is small enough to write in about a second
 * and to generate fast on one CPU core. Every dimension a Q8_0 row runs along is a multiple of 32.
 */
export const QWEN3_SHAPES: Readonly<Record<ShapeName, Readonly<Qwen3Shape>>> = {
  tiny: { hidden: 64, layers: 2, heads: 2, kvHeads: 1, headDim: 32, ffn: 192, contextLength: 40960, ropeTheta: 1e6, rmsEps: 1e-6 },
  "0.6b": { hidden: 1024, layers: 28, heads: 16, kvHeads: 8, headDim: 128, ffn: 3072, contextLength: 40960, ropeTheta: 1e6, rmsEps: 1e-6 },
};

/** What a tensor is, which decides how synthetic weights are drawn for it. */
export type TensorRole = "embedding" | "norm" | "matrix";

export interface Qwen3TensorSpec extends GgufTensorSpec {
  role: TensorRole;
  /** Input width of a matrix (dims[0]); scales its random weights. */
  fanIn: number;
}

/**
 * The tensors of a Qwen3 model in file order: `token_embd`, then per layer `attn_norm, attn_q, attn_k, attn_v,
 * attn_output, attn_q_norm, attn_k_norm, ffn_norm, ffn_gate, ffn_up, ffn_down`, then `output_norm`. Embeddings
 * are tied (no `output.weight`). Matrices use `matrixType`; 1-D norms are always F32.
 */
export function qwen3Tensors(shape: Qwen3Shape, vocabSize: number, matrixType: GgmlType): Qwen3TensorSpec[] {
  const { hidden, heads, kvHeads, headDim, ffn } = shape;
  const q = heads * headDim;
  const kv = kvHeads * headDim;
  const matrix = (name: string, cols: number, rows: number): Qwen3TensorSpec => ({
    name,
    dims: [cols, rows],
    type: matrixType,
    role: "matrix",
    fanIn: cols,
  });
  const norm = (name: string, width: number): Qwen3TensorSpec => ({ name, dims: [width], type: GGML_TYPE.F32, role: "norm", fanIn: width });
  const out: Qwen3TensorSpec[] = [{ name: "token_embd.weight", dims: [hidden, vocabSize], type: matrixType, role: "embedding", fanIn: hidden }];
  for (let l = 0; l < shape.layers; l++) {
    const p = `blk.${l}.`;
    out.push(
      norm(`${p}attn_norm.weight`, hidden),
      matrix(`${p}attn_q.weight`, hidden, q),
      matrix(`${p}attn_k.weight`, hidden, kv),
      matrix(`${p}attn_v.weight`, hidden, kv),
      matrix(`${p}attn_output.weight`, q, hidden),
      norm(`${p}attn_q_norm.weight`, headDim),
      norm(`${p}attn_k_norm.weight`, headDim),
      norm(`${p}ffn_norm.weight`, hidden),
      matrix(`${p}ffn_gate.weight`, hidden, ffn),
      matrix(`${p}ffn_up.weight`, hidden, ffn),
      matrix(`${p}ffn_down.weight`, ffn, hidden),
    );
  }
  out.push(norm("output_norm.weight", hidden));
  return out;
}
