// checkGgufFile: sound GGUFs (qtc's synthetic model, a small F32/F16/Q8_0 file) pass; each structural problem
// is model_load_failed with exit code 2, found without trusting any count in the header.

import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QtcException } from "../../src/errors.js";
import { checkGgufFile } from "../../src/model/gguf-check.js";
import { writeGguf, type GgufEntry, type GgufTensorSpec } from "../../src/model/gguf-writer.js";
import { GGML_TYPE, tensorByteSize } from "../../src/model/quantize.js";
import { tinyModelPath } from "../helpers/models.js";

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "qtc-gguf-check-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ARCH: GgufEntry = { key: "general.architecture", value: { type: "string", value: "qwen3" } };
const TENSORS: GgufTensorSpec[] = [
  { name: "a", dims: [64, 2], type: GGML_TYPE.F32 },
  { name: "b", dims: [64], type: GGML_TYPE.F16 },
  { name: "c", dims: [64, 3], type: GGML_TYPE.Q8_0 },
];

async function write(name: string, metadata: GgufEntry[], tensors = TENSORS): Promise<string> {
  const path = join(dir, name);
  await writeGguf(path, metadata, tensors, (t) => [Buffer.alloc(tensorByteSize(t.type, t.dims.reduce((a, b) => a * b, 1)))]);
  return path;
}

function failure(path: string): [string, number] | null {
  try {
    checkGgufFile(path);
    return null;
  } catch (e) {
    return e instanceof QtcException ? [e.code, e.exitCode] : ["not a QtcException", -1];
  }
}

describe("checkGgufFile", () => {
  test("passes qtc's synthetic model and a small file of F32, F16 and Q8_0 tensors", async () => {
    expect(failure(await tinyModelPath())).toBeNull();
    expect(failure(await write("ok.gguf", [ARCH]))).toBeNull();
  });

  test("refuses a file cut anywhere: in the header, the metadata, the tensor table or the data", async () => {
    const whole = readFileSync(await write("whole.gguf", [ARCH, { key: "x", value: { type: "array", of: "string", values: ["p", "q"] } }]));
    // The writer pads the last tensor to the alignment (32): cut further back than that.
    for (const cut of [0, 3, 12, 23, 30, 60, whole.length - 40]) {
      const path = join(dir, `cut-${cut}.gguf`);
      writeFileSync(path, whole.subarray(0, cut));
      expect(failure(path), `cut at ${cut}`).toEqual(["model_load_failed", 2]);
    }
  });

  test("refuses a missing general.architecture and a duplicate key", async () => {
    expect(failure(await write("no-arch.gguf", []))).toEqual(["model_load_failed", 2]);
    // The writer refuses duplicate keys, so rename one key to the other's name in the bytes.
    const int = (value: number): GgufEntry["value"] => ({ type: "u32", value });
    const path = await write("dup.gguf", [ARCH, { key: "kk1", value: int(1) }, { key: "kk2", value: int(2) }]);
    const bytes = readFileSync(path);
    bytes.write("kk1", bytes.indexOf("kk2"), "latin1");
    writeFileSync(path, bytes);
    expect(failure(path)).toEqual(["model_load_failed", 2]);
  });

  test("refuses an alignment that is not a power of two, and too many dimensions", async () => {
    expect(failure(await write("align.gguf", [ARCH, { key: "general.alignment", value: { type: "u32", value: 24 } }]))).toEqual(["model_load_failed", 2]);
    expect(failure(await write("dims.gguf", [ARCH], [{ name: "d", dims: [1, 1, 1, 1, 1], type: GGML_TYPE.F32 }]))).toEqual(["model_load_failed", 2]);
  });

  test("refuses data cut short by a single byte of the last tensor", async () => {
    // One Q8_0 tensor of 2 blocks (68 bytes) last: its data ends 68 bytes after its 32-aligned start.
    const path = await write("short.gguf", [ARCH], [{ name: "q", dims: [64], type: GGML_TYPE.Q8_0 }]);
    const size = readFileSync(path).length;
    const dataEnd = size - ((32 - (68 % 32)) % 32); // the writer pads the data to the alignment
    truncateSync(path, dataEnd);
    expect(failure(path)).toBeNull();
    truncateSync(path, dataEnd - 1);
    expect(failure(path)).toEqual(["model_load_failed", 2]);
  });

  test("a missing file or a folder is model_not_found", () => {
    expect(failure(join(dir, "nope.gguf"))).toEqual(["model_not_found", 2]);
    expect(failure(dir)).toEqual(["model_not_found", 2]);
  });
});
