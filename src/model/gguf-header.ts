// Owns: a fast look at the leading scalar metadata of a GGUF file (magic, version, and the key/values before the
// first array), without parsing the ~5 MB tokenizer arrays. Enough to tell a synthetic qtc model apart.

import { open } from "node:fs/promises";
import { GGUF_VALUE_TYPE } from "./gguf-writer.js";

export interface GgufPrefix {
  version: number;
  tensorCount: number;
  /** Scalar entries up to the first array (or the end of the bytes read), keyed by their full dotted name. */
  scalars: Map<string, string | number | boolean | bigint>;
}

/** Bytes read from the start of the file. Default: 64 KiB (qtc writes its own keys in the first few hundred). */
const PREFIX_BYTES = 64 * 1024;

/** Read the leading scalars of a GGUF file; null when the file is not GGUF (or not v2/v3). */
export async function readGgufPrefix(path: string): Promise<GgufPrefix | null> {
  const file = await open(path, "r");
  let buf: Buffer;
  try {
    buf = Buffer.alloc(PREFIX_BYTES);
    const { bytesRead } = await file.read(buf, 0, PREFIX_BYTES, 0);
    buf = buf.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  return parsePrefix(buf);
}

/** Parse the leading scalars from the first bytes of a GGUF file. */
export function parsePrefix(buf: Buffer): GgufPrefix | null {
  if (buf.length < 24 || buf.toString("latin1", 0, 4) !== "GGUF") return null;
  const version = buf.readUInt32LE(4);
  if (version !== 2 && version !== 3) return null;
  const tensorCount = Number(buf.readBigUInt64LE(8));
  const kvCount = Number(buf.readBigUInt64LE(16));
  const scalars = new Map<string, string | number | boolean | bigint>();
  const cursor = { buf, at: 24 };
  for (let i = 0; i < kvCount; i++) {
    const key = readString(cursor);
    if (key === null || !has(cursor, 4)) break;
    const type = buf.readUInt32LE(cursor.at);
    cursor.at += 4;
    const value = readScalar(cursor, type);
    if (value === null) break;
    scalars.set(key, value);
  }
  return { version, tensorCount, scalars };
}

interface Cursor {
  buf: Buffer;
  at: number;
}

const has = (c: Cursor, n: number): boolean => c.at + n <= c.buf.length;

function readString(c: Cursor): string | null {
  if (!has(c, 8)) return null;
  const len = Number(c.buf.readBigUInt64LE(c.at));
  if (!has(c, 8 + len)) return null;
  const s = c.buf.toString("utf8", c.at + 8, c.at + 8 + len);
  c.at += 8 + len;
  return s;
}

/** Fixed-size scalar readers by GGUF value type: [byte width, reader]. */
const FIXED: Partial<Record<number, [number, (b: Buffer, at: number) => number | boolean | bigint]>> = {
  [GGUF_VALUE_TYPE.UINT8]: [1, (b, at) => b.readUInt8(at)],
  [GGUF_VALUE_TYPE.INT8]: [1, (b, at) => b.readInt8(at)],
  [GGUF_VALUE_TYPE.UINT16]: [2, (b, at) => b.readUInt16LE(at)],
  [GGUF_VALUE_TYPE.INT16]: [2, (b, at) => b.readInt16LE(at)],
  [GGUF_VALUE_TYPE.UINT32]: [4, (b, at) => b.readUInt32LE(at)],
  [GGUF_VALUE_TYPE.INT32]: [4, (b, at) => b.readInt32LE(at)],
  [GGUF_VALUE_TYPE.FLOAT32]: [4, (b, at) => b.readFloatLE(at)],
  [GGUF_VALUE_TYPE.BOOL]: [1, (b, at) => b.readUInt8(at) !== 0],
  [GGUF_VALUE_TYPE.UINT64]: [8, (b, at) => b.readBigUInt64LE(at)],
  [GGUF_VALUE_TYPE.INT64]: [8, (b, at) => b.readBigInt64LE(at)],
  [GGUF_VALUE_TYPE.FLOAT64]: [8, (b, at) => b.readDoubleLE(at)],
};

/** Read one scalar value; null at an array, an unknown type or the end of the bytes. */
function readScalar(c: Cursor, type: number): string | number | boolean | bigint | null {
  if (type === GGUF_VALUE_TYPE.STRING) return readString(c);
  const fixed = FIXED[type];
  if (fixed === undefined || !has(c, fixed[0])) return null;
  const value = fixed[1](c.buf, c.at);
  c.at += fixed[0];
  return value;
}
