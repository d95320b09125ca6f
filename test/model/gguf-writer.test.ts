import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readGgufPrefix } from "../../src/model/gguf-header.js";
import { type GgufEntry, type GgufTensorSpec, writeGguf } from "../../src/model/gguf-writer.js";
import { GGML_TYPE, encodeF16, encodeF32 } from "../../src/model/quantize.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "qtc-gguf-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const METADATA: GgufEntry[] = [
  { key: "general.architecture", value: { type: "string", value: "qwen3" } },
  { key: "general.name", value: { type: "string", value: "tést ✓" } },
  { key: "test.u32", value: { type: "u32", value: 4_000_000_000 } },
  { key: "test.i32", value: { type: "i32", value: -7 } },
  { key: "test.f32", value: { type: "f32", value: 0.5 } },
  { key: "test.flag", value: { type: "bool", value: true } },
  { key: "test.words", value: { type: "array", of: "string", values: ["a b", "", "ü"] } },
  { key: "test.ints", value: { type: "array", of: "i32", values: [1, -2, 3] } },
  { key: "test.after_arrays", value: { type: "u32", value: 9 } },
];
const A = Float32Array.from([1, 2, 3]); // 12 bytes: forces padding before the next tensor
const B = Float32Array.from({ length: 6 }, (_, i) => i / 4);
const TENSORS: GgufTensorSpec[] = [
  { name: "a.weight", dims: [3], type: GGML_TYPE.F32 },
  { name: "b.weight", dims: [3, 2], type: GGML_TYPE.F16 },
];
const data = (t: GgufTensorSpec): Buffer[] => (t.name === "a.weight" ? [encodeF32(A)] : [encodeF16(B.subarray(0, 3)), encodeF16(B.subarray(3))]);

describe("writeGguf", () => {
  test("node-llama-cpp's GGUF reader reads back every key, tensor info and tensor byte", async () => {
    const path = join(dir, "small.gguf");
    const result = await writeGguf(path, METADATA, TENSORS, data);
    const bytes = await readFile(path);
    expect(result.bytes).toBe(bytes.length);
    expect(result.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));

    const info = await readGgufFileInfo(path, { sourceType: "filesystem", logWarnings: false });
    expect(info.version).toBe(3);
    const meta = info.metadata as unknown as Record<string, Record<string, unknown>>;
    expect(meta.general).toEqual({ architecture: "qwen3", name: "tést ✓" });
    expect(meta.test).toEqual({ u32: 4_000_000_000, i32: -7, f32: 0.5, flag: true, words: ["a b", "", "ü"], ints: [1, -2, 3], after_arrays: 9 });
    const tensors = info.tensorInfo!.map((t) => ({ name: t.name, dims: t.dimensions.map(Number), type: t.ggmlType, offset: Number(t.offset) }));
    expect(tensors).toEqual([
      { name: "a.weight", dims: [3], type: GGML_TYPE.F32, offset: 0 },
      { name: "b.weight", dims: [3, 2], type: GGML_TYPE.F16, offset: 32 },
    ]);
    const dataStart = info.infoEndOffset!;
    expect(dataStart % 32).toBe(0);
    expect(bytes.subarray(dataStart, dataStart + 12)).toEqual(encodeF32(A));
    expect(bytes.subarray(dataStart + 32, dataStart + 44)).toEqual(encodeF16(B));
    expect(bytes.length).toBe(dataStart + 64); // last tensor padded to the alignment too
  });

  test("the prefix reader sees the scalars before the first array, and stops there", async () => {
    const path = join(dir, "prefix.gguf");
    await writeGguf(path, METADATA, TENSORS, data);
    const prefix = await readGgufPrefix(path);
    expect(prefix?.version).toBe(3);
    expect(prefix?.tensorCount).toBe(2);
    expect([...prefix!.scalars.entries()]).toEqual([
      ["general.architecture", "qwen3"],
      ["general.name", "tést ✓"],
      ["test.u32", 4_000_000_000],
      ["test.i32", -7],
      ["test.f32", 0.5],
      ["test.flag", true],
    ]);
  });

  test("a data source that gives the wrong number of bytes is an error", async () => {
    const path = join(dir, "short.gguf");
    await expect(writeGguf(path, METADATA, TENSORS, () => [Buffer.alloc(4)])).rejects.toThrow(/a\.weight.*gave 4 bytes, expected 12/);
    await expect(writeGguf(path, METADATA, TENSORS, () => [Buffer.alloc(100)])).rejects.toThrow(/more than 12 bytes/);
  });

  test("duplicate keys are refused", async () => {
    const dup = [...METADATA, METADATA[0]!];
    await expect(writeGguf(join(dir, "dup.gguf"), dup, TENSORS, data)).rejects.toThrow(/duplicate GGUF key general.architecture/);
  });

  test("a non-GGUF file has no prefix", async () => {
    const path = join(dir, "not.gguf");
    await writeGguf(path, METADATA, TENSORS, data);
    const bytes = await readFile(path);
    bytes.write("GGUX", 0, "latin1");
    await writeFile(path, bytes);
    expect(await readGgufPrefix(path)).toBeNull();
  });
});
