// Owns: reading F32 tensors out of a GGUF file (and writes a copy with one value changed), independently of llama.cpp:
// the header's key/values are skipped by type, the tensor infos give each tensor's offset in the data section.

import { readFileSync, writeFileSync } from "node:fs";

export interface GgufTensorInfo {
  name: string;
  dims: number[];
  type: number;
  /** Byte offset of the tensor's data in the file. */
  at: number;
}

const GGUF_F32 = 0;
const SCALAR_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

/** Every tensor's name, shape, type and data offset. */
export function ggufTensors(buf: Buffer): Map<string, GgufTensorInfo> {
  if (buf.toString("latin1", 0, 4) !== "GGUF") throw new Error("not a GGUF file");
  let p = 8;
  const u32 = () => ((p += 4), buf.readUInt32LE(p - 4));
  const u64 = () => ((p += 8), Number(buf.readBigUInt64LE(p - 8)));
  const str = () => {
    const n = u64();
    p += n;
    return buf.toString("utf8", p - n, p);
  };
  const skip = (type: number): unknown => {
    if (type === 8) return str();
    if (type === 9) {
      const inner = u32();
      const n = u64();
      for (let i = 0; i < n; i++) skip(inner);
      return undefined;
    }
    const size = SCALAR_BYTES[type];
    if (size === undefined) throw new Error(`GGUF value type ${type}`);
    const v = type === 4 ? buf.readUInt32LE(p) : undefined;
    p += size;
    return v;
  };
  const nTensors = u64();
  const nKv = u64();
  let alignment = 32;
  for (let i = 0; i < nKv; i++) {
    const key = str();
    const v = skip(u32());
    if (key === "general.alignment" && typeof v === "number") alignment = v;
  }
  const infos: { name: string; dims: number[]; type: number; offset: number }[] = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const nd = u32();
    const dims = Array.from({ length: nd }, u64);
    const type = u32();
    infos.push({ name, dims, type, offset: u64() });
  }
  const data = Math.ceil(p / alignment) * alignment;
  return new Map(infos.map((t) => [t.name, { name: t.name, dims: t.dims, type: t.type, at: data + t.offset }]));
}

/** An F32 tensor's values (a copy). */
export function readF32(file: string, name: string): Float32Array {
  const buf = readFileSync(file);
  const t = ggufTensors(buf).get(name);
  if (!t) throw new Error(`${file} has no tensor ${name}`);
  if (t.type !== GGUF_F32) throw new Error(`${name} is type ${t.type}, not F32`);
  const n = t.dims.reduce((a, b) => a * b, 1);
  return new Float32Array(buf.buffer.slice(buf.byteOffset + t.at, buf.byteOffset + t.at + n * 4));
}

/** Copy `from` to `to` with element `index` of F32 tensor `name` set to `value`. */
export function writeWithF32(from: string, to: string, name: string, index: number, value: number): void {
  const buf = Buffer.from(readFileSync(from));
  const t = ggufTensors(buf).get(name);
  if (!t || t.type !== GGUF_F32) throw new Error(`${from} has no F32 tensor ${name}`);
  buf.writeFloatLE(value, t.at + index * 4);
  writeFileSync(to, buf);
}
