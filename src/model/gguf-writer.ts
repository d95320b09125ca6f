// Owns: writing GGUF v3 files: the header (metadata key/values and tensor infos) built in memory, then tensor
// data streamed tensor by tensor, chunk by chunk, so a file never has to fit in memory. Hashes as it writes.

import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { type GgmlType, tensorByteSize } from "./quantize.js";

/** GGUF metadata value type ids (gguf_type in the spec). */
export const GGUF_VALUE_TYPE = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;

/** A scalar metadata value, tagged with the GGUF type it is written as. */
export type GgufScalar =
  | { type: "u32"; value: number }
  | { type: "i32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string };

/** A metadata value: a scalar or an array of scalars of one type. */
export type GgufValue = GgufScalar | { type: "array"; of: "string"; values: readonly string[] } | { type: "array"; of: "i32"; values: readonly number[] };

/** One metadata entry. Entries are written in the given order (the order is part of the bytes). */
export interface GgufEntry {
  key: string;
  value: GgufValue;
}

/** One tensor: `dims` in ggml order (dims[0] is the innermost, contiguous dimension). */
export interface GgufTensorSpec {
  name: string;
  dims: readonly number[];
  type: GgmlType;
}

/** Yields a tensor's encoded bytes in order; together they must be exactly the tensor's byte size. */
export type TensorDataSource = (tensor: GgufTensorSpec) => AsyncIterable<Buffer> | Iterable<Buffer>;

export interface GgufWriteResult {
  path: string;
  bytes: number;
  /** Hex sha256 of the whole file. */
  sha256: string;
}

/** Defaults of the GGUF writer. */
export const GGUF_DEFAULTS = {
  /** Alignment of the data section and of every tensor, in bytes. Default: 32 (GGUF's default; not written as a key). */
  alignment: 32,
} as const;

const GGUF_MAGIC = "GGUF";
const GGUF_VERSION = 3;

/** Number of elements of a tensor. */
export function elementCount(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

const align = (n: number, to: number): number => n + ((to - (n % to)) % to);

/**
 * Write a GGUF v3 file at `path` (overwriting it). The header is built first, then each tensor's bytes are pulled
 * from `data` and written with alignment padding, so memory stays at one chunk plus the header.
 */
export async function writeGguf(
  path: string,
  metadata: readonly GgufEntry[],
  tensors: readonly GgufTensorSpec[],
  data: TensorDataSource,
): Promise<GgufWriteResult> {
  const alignment = GGUF_DEFAULTS.alignment;
  const sizes = tensors.map((t) => tensorByteSize(t.type, elementCount(t.dims)));
  const offsets: number[] = [];
  let dataBytes = 0;
  for (const size of sizes) {
    offsets.push(dataBytes);
    dataBytes = align(dataBytes + size, alignment);
  }
  const header = encodeHeader(metadata, tensors, offsets);
  const headerPadded = align(header.length, alignment);

  const hash = createHash("sha256");
  const file = await open(path, "w");
  let written = 0;
  const put = async (buf: Buffer): Promise<void> => {
    hash.update(buf);
    let at = 0;
    while (at < buf.length) {
      const { bytesWritten } = await file.write(buf, at, buf.length - at);
      at += bytesWritten;
    }
    written += buf.length;
  };
  try {
    await put(header);
    await put(Buffer.alloc(headerPadded - header.length));
    for (let i = 0; i < tensors.length; i++) {
      const tensor = tensors[i]!;
      let got = 0;
      for await (const chunk of data(tensor)) {
        got += chunk.length;
        if (got > sizes[i]!) throw new Error(`tensor ${tensor.name}: data source gave more than ${sizes[i]} bytes`);
        await put(chunk);
      }
      if (got !== sizes[i]) throw new Error(`tensor ${tensor.name}: data source gave ${got} bytes, expected ${sizes[i]}`);
      const end = i + 1 < tensors.length ? offsets[i + 1]! : dataBytes;
      await put(Buffer.alloc(end - offsets[i]! - got));
    }
  } finally {
    await file.close();
  }
  return { path, bytes: written, sha256: hash.digest("hex") };
}

/** Encode the GGUF header: magic, version, counts, metadata entries and tensor infos (unpadded). */
export function encodeHeader(metadata: readonly GgufEntry[], tensors: readonly GgufTensorSpec[], offsets: readonly number[]): Buffer {
  const out = new ByteSink();
  out.raw(Buffer.from(GGUF_MAGIC, "latin1"));
  out.u32(GGUF_VERSION);
  out.u64(tensors.length);
  out.u64(metadata.length);
  const seen = new Set<string>();
  for (const { key, value } of metadata) {
    if (seen.has(key)) throw new Error(`duplicate GGUF key ${key}`);
    seen.add(key);
    out.str(key);
    writeValue(out, value);
  }
  tensors.forEach((t, i) => {
    out.str(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(t.type);
    out.u64(offsets[i]!);
  });
  return out.bytes();
}

function writeValue(out: ByteSink, value: GgufValue): void {
  switch (value.type) {
    case "u32":
      out.u32(GGUF_VALUE_TYPE.UINT32);
      out.u32(value.value);
      return;
    case "i32":
      out.u32(GGUF_VALUE_TYPE.INT32);
      out.i32(value.value);
      return;
    case "f32":
      out.u32(GGUF_VALUE_TYPE.FLOAT32);
      out.f32(value.value);
      return;
    case "bool":
      out.u32(GGUF_VALUE_TYPE.BOOL);
      out.u8(value.value ? 1 : 0);
      return;
    case "string":
      out.u32(GGUF_VALUE_TYPE.STRING);
      out.str(value.value);
      return;
    case "array":
      out.u32(GGUF_VALUE_TYPE.ARRAY);
      if (value.of === "string") {
        out.u32(GGUF_VALUE_TYPE.STRING);
        out.u64(value.values.length);
        for (const s of value.values) out.str(s);
      } else {
        out.u32(GGUF_VALUE_TYPE.INT32);
        out.u64(value.values.length);
        for (const n of value.values) out.i32(n);
      }
      return;
  }
}

/** A growable little-endian byte buffer for the header. */
class ByteSink {
  private buf = Buffer.alloc(1 << 16);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  u8(n: number): void {
    this.reserve(1);
    this.len = this.buf.writeUInt8(n, this.len);
  }
  u32(n: number): void {
    this.reserve(4);
    this.len = this.buf.writeUInt32LE(n, this.len);
  }
  i32(n: number): void {
    this.reserve(4);
    this.len = this.buf.writeInt32LE(n, this.len);
  }
  f32(n: number): void {
    this.reserve(4);
    this.len = this.buf.writeFloatLE(n, this.len);
  }
  u64(n: number): void {
    this.reserve(8);
    this.len = this.buf.writeBigUInt64LE(BigInt(n), this.len);
  }
  raw(bytes: Buffer): void {
    this.reserve(bytes.length);
    bytes.copy(this.buf, this.len);
    this.len += bytes.length;
  }
  str(s: string): void {
    const bytes = Buffer.from(s, "utf8");
    this.u64(bytes.length);
    this.raw(bytes);
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}
