import { describe, expect, test } from "vitest";
import { GGML_TYPE, encodeF16, encodeF32, encodeQ8_0, f16BitsToF32, f32ToF16Bits, tensorByteSize } from "../../src/model/quantize.js";

describe("f32ToF16Bits", () => {
  test.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [0.1, 0x2e66],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up past the largest finite half: infinity
    [1e6, 0x7c00],
    [-Infinity, 0xfc00],
    [5.960464477539063e-8, 0x0001], // smallest subnormal
    [2.9e-8, 0x0000], // below half the smallest subnormal: zero
    [6.097555160522461e-5, 0x03ff], // largest subnormal
    [2049, 0x6800], // tie between 2048 and 2050: to even (2048)
    [2051, 0x6802], // tie between 2050 and 2052: to even (2052)
  ])("%d → 0x%s", (value, bits) => {
    expect(f32ToF16Bits(value)).toBe(bits);
  });

  test("NaN stays NaN", () => {
    expect(Number.isNaN(f16BitsToF32(f32ToF16Bits(NaN)))).toBe(true);
  });

  test("round-trips every finite half exactly", () => {
    const wrong: number[] = [];
    for (let bits = 0; bits < 0x10000; bits++) {
      if ((bits & 0x7c00) === 0x7c00) continue; // inf / NaN
      if (f32ToF16Bits(f16BitsToF32(bits)) !== bits) wrong.push(bits);
    }
    expect(wrong).toEqual([]);
  });
});

describe("encoders", () => {
  test("F32 and F16 are little-endian", () => {
    expect([...encodeF32(new Float32Array([1, -2]))]).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
    expect([...encodeF16(new Float32Array([1, -2]))]).toEqual([0x00, 0x3c, 0x00, 0xc0]);
  });

  test("Q8_0 block: F16 scale max|x|/127, then 32 rounded int8 values", () => {
    const values = Float32Array.from({ length: 32 }, (_, i) => i - 16); // -16 … 15, max |x| = 16
    const out = encodeQ8_0(values);
    expect(out.length).toBe(34);
    expect(out.readUInt16LE(0)).toBe(f32ToF16Bits(16 / 127));
    const q = [...new Int8Array(out.buffer, out.byteOffset + 2, 32)];
    expect(q).toEqual(Array.from({ length: 32 }, (_, i) => Math.sign(i - 16) * Math.round((Math.abs(i - 16) * 127) / 16)));
    expect(q[0]).toBe(-127);
  });

  test("Q8_0 rounds halves away from zero, like roundf", () => {
    const values = new Float32Array(32);
    values[0] = 127; // d = 1
    values[1] = 2.5;
    values[2] = -2.5;
    const q = new Int8Array(encodeQ8_0(values).buffer, 2, 32);
    expect([q[0], q[1], q[2]]).toEqual([127, 3, -3]);
  });

  test("an all-zero Q8_0 block has scale 0 and zeros", () => {
    expect([...encodeQ8_0(new Float32Array(64))]).toEqual(new Array(68).fill(0));
  });

  test("Q8_0 reconstructs within half a step", () => {
    const values = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i * 1.7) * 0.3);
    const out = encodeQ8_0(values);
    for (let b = 0; b < 2; b++) {
      const d = f16BitsToF32(out.readUInt16LE(b * 34));
      for (let i = 0; i < 32; i++) {
        const x = values[b * 32 + i]!;
        expect(Math.abs(out.readInt8(b * 34 + 2 + i) * d - x)).toBeLessThanOrEqual(d / 2 + Math.abs(x) * 1e-3);
      }
    }
  });

  test("byte sizes; Q8_0 refuses counts that are not a multiple of 32", () => {
    expect(tensorByteSize(GGML_TYPE.F32, 10)).toBe(40);
    expect(tensorByteSize(GGML_TYPE.F16, 10)).toBe(20);
    expect(tensorByteSize(GGML_TYPE.Q8_0, 64)).toBe(68);
    expect(() => tensorByteSize(GGML_TYPE.Q8_0, 33)).toThrow(RangeError);
  });
});
