// Owns: where Qwen3.5's tokenizer data lives and how it is read: its official merges.txt (checked by sha256; plain
// or gzipped) and the real (id, text) pairs the gaps are placed from (CSV files with `ID` and `Text` columns).
// The folder is `data/qwen3.5/` in the package, or `$QTC_QWEN35_DATA`; nothing is fetched.

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { packageRoot } from "./paths.js";
import type { RealPair } from "./qwen35-bpe.js";

/** Environment variable naming another folder for Qwen3.5's tokenizer data. */
export const QWEN35_DATA_ENV = "QTC_QWEN35_DATA";

/** Qwen3.5's official merges.txt (Qwen/Qwen3.5-* tokenizer files, Apache-2.0): what qtc accepts. */
export const QWEN35_MERGES_FILE = {
  names: ["merges.txt.gz", "merges.txt"],
  bytes: 3_353_259,
  sha256: "a9d356d7bdf1ef4949e3e748e95b8e10ad9d4e2e838eddc38a0a7b6b94d1db8d",
} as const;

/** The folder holding Qwen3.5's tokenizer data: `$QTC_QWEN35_DATA` when set, else `<package root>/data/qwen3.5`. */
export function qwen35DataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[QWEN35_DATA_ENV];
  return fromEnv !== undefined && fromEnv !== "" ? resolve(fromEnv) : join(packageRoot(), "data", "qwen3.5");
}

/** The merges file in `dir`, or null when there is none. */
export function qwen35MergesPath(dir: string = qwen35DataDir()): string | null {
  for (const name of QWEN35_MERGES_FILE.names) if (existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/**
 * Qwen3.5's merges in rank order (the `#version` line dropped), or null when the folder has no merges file.
 * Throws when the file is not the official one (its bytes or sha256 differ): a wrong table must never pass for
 * Qwen3.5's.
 */
export async function readQwen35Merges(dir: string = qwen35DataDir()): Promise<string[] | null> {
  const path = qwen35MergesPath(dir);
  if (path === null) return null;
  const raw = await readFile(path);
  const bytes = path.endsWith(".gz") ? gunzipSync(raw) : raw;
  const sha = createHash("sha256").update(bytes).digest("hex");
  if (bytes.length !== QWEN35_MERGES_FILE.bytes || sha !== QWEN35_MERGES_FILE.sha256) {
    throw new Error(`${path} is not Qwen3.5's merges.txt (${bytes.length} bytes, sha256 ${sha}; want ${QWEN35_MERGES_FILE.bytes}, ${QWEN35_MERGES_FILE.sha256})`);
  }
  return bytes
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#version"));
}

/** Every real pair in the folder's `*.csv` files (columns `ID` and `Text`), one per id, in id order. */
export async function readQwen35Pairs(dir: string = qwen35DataDir()): Promise<RealPair[]> {
  const names = existsSync(dir) ? (await readdir(dir)).filter((n) => n.endsWith(".csv")).sort() : [];
  const byId = new Map<number, RealPair>();
  for (const name of names) {
    for (const pair of parseIdTextCsv(await readFile(join(dir, name), "utf8"))) {
      const seen = byId.get(pair.id);
      if (seen !== undefined && seen.text !== pair.text) throw new Error(`${name}: id ${pair.id} has two texts`);
      byId.set(pair.id, pair);
    }
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * The `ID` and `Text` columns of a CSV (RFC 4180: quoted fields may hold commas, quotes doubled, and newlines;
 * whitespace is kept). Rows without a whole-number id are skipped.
 */
export function parseIdTextCsv(text: string): RealPair[] {
  const rows = parseCsv(text);
  const header = rows.shift() ?? [];
  const idAt = header.indexOf("ID");
  const textAt = header.indexOf("Text");
  if (idAt < 0 || textAt < 0) return [];
  const pairs: RealPair[] = [];
  for (const row of rows) {
    const id = Number(row[idAt]);
    if (row[textAt] !== undefined && /^\d+$/.test(row[idAt] ?? "") && Number.isSafeInteger(id)) pairs.push({ id, text: row[textAt]! });
  }
  return pairs;
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      (row = []), (field = "");
    } else field += c;
  }
  if (field !== "" || row.length > 0) row.push(field), rows.push(row);
  return rows;
}
