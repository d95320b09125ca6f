// Owns: the tensor encodings qtc writes (F32, F16, Q8_0): ggml type ids, byte sizes and encoders from float32.

/** ggml tensor type ids (a subset; values as in ggml.h and the GGUF spec). */
export const GGML_TYPE = { F32: 0, F16: 1, Q8_0: 8 } as const;
export type GgmlType = (typeof GGML_TYPE)[keyof typeof GGML_TYPE];

/** Weight encodings a synthetic model can be written in. */
export const DTYPES = ["q8_0", "f16", "f32"] as const;
export type Dtype = (typeof DTYPES)[number];

/** The ggml type used for the 2-D weights of a model written in `dtype`. 1-D norms are always F32. */
export const GGML_TYPE_OF_DTYPE: Readonly<Record<Dtype, GgmlType>> = { q8_0: GGML_TYPE.Q8_0, f16: GGML_TYPE.F16, f32: GGML_TYPE.F32 };

/** `general.file_type` (llama_ftype) for a model whose weights are all `dtype`: ALL_F32, MOSTLY_F16, MOSTLY_Q8_0. */
export const FILE_TYPE_OF_DTYPE: Readonly<Record<Dtype, number>> = { f32: 0, f16: 1, q8_0: 7 };

/** Q8_0 packs 32 values into one block: a float16 scale and 32 signed bytes. */
export const Q8_0_BLOCK = 32;
const Q8_0_BLOCK_BYTES = 2 + Q8_0_BLOCK;

/** Bytes that `count` values take in `type`. Q8_0 needs a multiple of 32 values. */
export function tensorByteSize(type: GgmlType, count: number): number {
  switch (type) {
    case GGML_TYPE.F32:
      return count * 4;
    case GGML_TYPE.F16:
      return count * 2;
    case GGML_TYPE.Q8_0:
      if (count % Q8_0_BLOCK !== 0) throw new RangeError(`Q8_0 needs a multiple of ${Q8_0_BLOCK} values, got ${count}`);
      return (count / Q8_0_BLOCK) * Q8_0_BLOCK_BYTES;
  }
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE half-precision bits of `value` (round to nearest even; overflow to infinity; NaN stays NaN). */
export function f32ToF16Bits(value: number): number {
  f32Scratch[0] = value;
  const x = u32Scratch[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let out = mant >>> shift;
    if (rest > half || (rest === half && (out & 1) === 1)) out += 1;
    return sign | out;
  }
  let out = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (out & 1) === 1)) out += 1; // may carry into the exponent: still correct
  return sign | out;
}

/** The float value of half-precision bits (the inverse of f32ToF16Bits, for checks and readers). */
export function f16BitsToF32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant !== 0 ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Encode float32 values as little-endian F32 bytes. */
export function encodeF32(values: Float32Array): Buffer {
  const out = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) out.writeFloatLE(values[i]!, i * 4);
  return out;
}

/** Encode float32 values as little-endian F16 bytes. */
export function encodeF16(values: Float32Array): Buffer {
  const out = Buffer.alloc(values.length * 2);
  for (let i = 0; i < values.length; i++) out.writeUInt16LE(f32ToF16Bits(values[i]!), i * 2);
  return out;
}

/**
 * Encode float32 values as Q8_0 blocks, like ggml's reference quantizer: per block of 32, scale d = max|x| / 127
 * (stored as F16) and q = roundf(x / d), rounding halves away from zero.
 */
export function encodeQ8_0(values: Float32Array): Buffer {
  const blocks = tensorByteSize(GGML_TYPE.Q8_0, values.length) / Q8_0_BLOCK_BYTES;
  const bytes = new Uint8Array(blocks * Q8_0_BLOCK_BYTES);
  const signed = new Int8Array(bytes.buffer);
  for (let b = 0; b < blocks; b++) {
    const base = b * Q8_0_BLOCK;
    let amax = 0;
    for (let i = 0; i < Q8_0_BLOCK; i++) {
      const a = Math.abs(values[base + i]!);
      if (a > amax) amax = a;
    }
    const d = amax / 127;
    const inv = d !== 0 ? 1 / d : 0;
    const at = b * Q8_0_BLOCK_BYTES;
    const bits = f32ToF16Bits(d);
    bytes[at] = bits & 0xff;
    bytes[at + 1] = bits >>> 8;
    for (let i = 0; i < Q8_0_BLOCK; i++) {
      const x = values[base + i]! * inv; // |x| <= 127 (plus rounding)
      const q = x < 0 ? (x - 0.5) | 0 : (x + 0.5) | 0; // truncating x ± 0.5 rounds halves away from zero, like roundf
      signed[at + 2 + i] = q > 127 ? 127 : q < -128 ? -128 : q;
    }
  }
  return Buffer.from(bytes.buffer, 0, bytes.length);
}

/** Encode float32 values in `type`. */
export function encodeTensorData(type: GgmlType, values: Float32Array): Buffer {
  switch (type) {
    case GGML_TYPE.F32:
      return encodeF32(values);
    case GGML_TYPE.F16:
      return encodeF16(values);
    case GGML_TYPE.Q8_0:
      return encodeQ8_0(values);
  }
}
