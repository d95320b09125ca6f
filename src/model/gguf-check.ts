// Owns: checking a GGUF file's structure against its size before node-llama-cpp or llama.cpp reads it. Their
// readers trust the header: a 24-byte file claiming 2^63-1 entries makes node-llama-cpp loop with memory
// growing, a huge array length crashes V8, a 20-byte file leaks a TypeError, a truncated file prints llama.cpp's
// own error lines. Every count and length here is checked against the bytes that are left, so a bad file costs
// at most one pass over its header and ends as one QtcException (`model_load_failed`, exit 2).

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { fail } from "../errors.js";
import { GGUF_VALUE_TYPE } from "./gguf-writer.js";

/** Bytes read from the file at a time while walking the header. */
const WINDOW = 1 << 20;
/** llama.cpp's GGML_MAX_DIMS. */
const MAX_DIMS = 4;
/** GGUF's default data alignment (`general.alignment` overrides it). */
const DEFAULT_ALIGNMENT = 32;

/** [elements per block, bytes per block] of the ggml tensor types whose size qtc knows; others are not size-checked. */
const TYPE_SIZES: Partial<Record<number, [number, number]>> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  24: [1, 1], // I8
  25: [1, 2], // I16
  26: [1, 4], // I32
  27: [1, 8], // I64
  28: [1, 8], // F64
  30: [1, 2], // BF16
};

/** Byte width of each fixed-size GGUF value type. */
const FIXED_WIDTH: Partial<Record<number, number>> = {
  [GGUF_VALUE_TYPE.UINT8]: 1,
  [GGUF_VALUE_TYPE.INT8]: 1,
  [GGUF_VALUE_TYPE.BOOL]: 1,
  [GGUF_VALUE_TYPE.UINT16]: 2,
  [GGUF_VALUE_TYPE.INT16]: 2,
  [GGUF_VALUE_TYPE.UINT32]: 4,
  [GGUF_VALUE_TYPE.INT32]: 4,
  [GGUF_VALUE_TYPE.FLOAT32]: 4,
  [GGUF_VALUE_TYPE.UINT64]: 8,
  [GGUF_VALUE_TYPE.INT64]: 8,
  [GGUF_VALUE_TYPE.FLOAT64]: 8,
};

class BadGguf extends Error {}

/** A forward-only reader over a file descriptor that never reads past the file's size. */
class HeaderReader {
  pos = 0;
  private window = Buffer.alloc(0);
  private windowAt = 0;

  constructor(private readonly fd: number, readonly size: number) {}

  get left(): number {
    return this.size - this.pos;
  }

  /** The next `n` bytes (n small), or BadGguf when the file ends first. */
  take(n: number, what: string): Buffer {
    if (n > this.left) throw new BadGguf(`it ends inside ${what} (offset ${this.pos}, ${this.size} bytes in all)`);
    if (this.pos < this.windowAt || this.pos + n > this.windowAt + this.window.length) {
      const length = Math.min(Math.max(WINDOW, n), this.size - this.pos);
      this.window = Buffer.alloc(length);
      readSync(this.fd, this.window, 0, length, this.pos);
      this.windowAt = this.pos;
    }
    const start = this.pos - this.windowAt;
    this.pos += n;
    return this.window.subarray(start, start + n);
  }

  u32(what: string): number {
    return this.take(4, what).readUInt32LE(0);
  }

  /** A u64 that must fit in the bytes left when each unit takes `unitBytes` (so it is a safe integer too). */
  count(what: string, unitBytes: number): number {
    const value = this.take(8, what).readBigUInt64LE(0);
    if (value > BigInt(Math.floor(this.left / Math.max(unitBytes, 1)))) {
      throw new BadGguf(`${what} is ${value}, more than the ${this.left} bytes left could hold`);
    }
    return Number(value);
  }

  skip(n: number, what: string): void {
    if (n > this.left) throw new BadGguf(`it ends inside ${what}`);
    this.pos += n;
  }

  string(what: string): string {
    const length = this.count(`the length of ${what}`, 1);
    return this.take(length, what).toString("utf8");
  }

  skipString(what: string): void {
    this.skip(this.count(`the length of ${what}`, 1), what);
  }
}

/** Smallest encoding of one value of `type`: the bound that a claimed array length is checked against. */
function minBytes(type: number): number {
  if (type === GGUF_VALUE_TYPE.STRING) return 8;
  if (type === GGUF_VALUE_TYPE.ARRAY) return 12;
  return FIXED_WIDTH[type] ?? 1;
}

/** Skip one value of `type`; returns it when it is a u32 (for `general.alignment`). */
function skipValue(r: HeaderReader, type: number, key: string, depth: number): number | undefined {
  const fixed = FIXED_WIDTH[type];
  if (fixed !== undefined) {
    if (type === GGUF_VALUE_TYPE.UINT32) return r.u32(`the value of ${key}`);
    r.skip(fixed, `the value of ${key}`);
    return undefined;
  }
  if (type === GGUF_VALUE_TYPE.STRING) {
    r.skipString(`the value of ${key}`);
    return undefined;
  }
  if (type !== GGUF_VALUE_TYPE.ARRAY) throw new BadGguf(`${key} has unknown value type ${type}`);
  if (depth > 0) throw new BadGguf(`${key} is an array of arrays`); // llama.cpp does not read nested arrays either
  const itemType = r.u32(`the item type of ${key}`);
  const length = r.count(`the length of array ${key}`, minBytes(itemType));
  const width = FIXED_WIDTH[itemType];
  if (width !== undefined) r.skip(length * width, `array ${key}`);
  else for (let i = 0; i < length; i++) skipValue(r, itemType, `${key}[${i}]`, depth + 1);
  return undefined;
}

/** Walk the key/values; returns the data alignment. */
function checkMetadata(r: HeaderReader, kvCount: number): number {
  const keys = new Set<string>();
  let alignment = DEFAULT_ALIGNMENT;
  let architecture = false;
  for (let i = 0; i < kvCount; i++) {
    const key = r.string(`key #${i}`);
    if (keys.has(key)) throw new BadGguf(`key ${key} appears twice`);
    keys.add(key);
    const value = skipValue(r, r.u32(`the type of ${key}`), key, 0);
    if (key === "general.architecture") architecture = true;
    if (key === "general.alignment") {
      if (value === undefined || value === 0 || (value & (value - 1)) !== 0) throw new BadGguf("general.alignment is not a power of two (u32)");
      alignment = value;
    }
  }
  // The GGUF spec requires it; node-llama-cpp reads it unchecked (a TypeError without it).
  if (!architecture) throw new BadGguf("it has no general.architecture key");
  return alignment;
}

interface TensorInfo {
  name: string;
  offset: bigint;
  bytes: bigint | undefined;
}

function readTensorInfo(r: HeaderReader, i: number, alignment: number): TensorInfo {
  const name = r.string(`the name of tensor #${i}`);
  const dims = r.u32(`the dimensions of tensor ${name}`);
  if (dims < 1 || dims > MAX_DIMS) throw new BadGguf(`tensor ${name} has ${dims} dimensions (1 to ${MAX_DIMS} allowed)`);
  let elements = 1n;
  for (let d = 0; d < dims; d++) elements *= r.take(8, `the shape of tensor ${name}`).readBigUInt64LE(0);
  const type = r.u32(`the type of tensor ${name}`);
  const offset = r.take(8, `the offset of tensor ${name}`).readBigUInt64LE(0);
  if (offset % BigInt(alignment) !== 0n) throw new BadGguf(`tensor ${name} is not aligned to ${alignment} bytes`);
  const size = TYPE_SIZES[type];
  if (size !== undefined && elements % BigInt(size[0]) !== 0n) throw new BadGguf(`tensor ${name} is not a whole number of blocks`);
  return { name, offset, bytes: size === undefined ? undefined : (elements / BigInt(size[0])) * BigInt(size[1]) };
}

/** Walk the whole header and the tensor table, and check that every tensor's data lies inside the file. */
function checkHeader(r: HeaderReader): void {
  if (r.size < 4 || r.take(4, "the magic").toString("latin1") !== "GGUF") throw new BadGguf('it does not start with "GGUF"');
  const version = r.u32("the version");
  if (version !== 2 && version !== 3) throw new BadGguf(`GGUF version ${version} is not supported (2 or 3)`);
  const tensorCount = r.count("the tensor count", 32);
  const kvCount = r.count("the metadata count", 13);
  const alignment = checkMetadata(r, kvCount);
  const tensors: TensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) tensors.push(readTensorInfo(r, i, alignment));
  const dataStart = BigInt(Math.ceil(r.pos / alignment) * alignment);
  for (const t of tensors) {
    const end = dataStart + t.offset + (t.bytes ?? 0n);
    if (end > BigInt(r.size)) throw new BadGguf(`tensor ${t.name}'s data ends at byte ${end}, past the end of the file (${r.size} bytes): it is truncated`);
  }
}

/**
 * Check that `path` is a structurally sound GGUF (v2/v3) whose counts, lengths and tensor data fit in the
 * file. Throws QtcException `model_load_failed` with exit code 2 (bad input) naming the first problem.
 */
export function checkGgufFile(path: string, what = "model file"): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    fail("model_not_found", `cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`, { path });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) fail("model_not_found", `${what} ${path} is not a file`, { path });
    checkHeader(new HeaderReader(fd, stat.size));
  } catch (e) {
    if (e instanceof BadGguf) fail("model_load_failed", `${what} ${path} is not a valid GGUF: ${e.message}`, { path });
    throw e;
  } finally {
    closeSync(fd);
  }
}
