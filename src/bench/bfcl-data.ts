// Owns: BFCL's data (ShishirPatil/gorilla, berkeley-function-call-leaderboard/bfcl_eval/data, Apache-2.0): the
// categories qtc runs, the files of each at a pinned commit with their SHA-256, fetching them at first use into
// the user cache (progress, checksum, a clear `download_failed` offline), and reading a category's questions.

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fail, QtcException } from "../errors.js";
import { qtcCacheDir } from "../model/paths.js";
import type { BfclExpectedCall, BfclFunction } from "./bfcl-checker.js";

/** The gorilla commit the checksums below were taken at. */
export const BFCL_COMMIT = "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8";
/** Environment variable that replaces the download's base URL (tests, mirrors). */
export const BFCL_URL_ENV = "QTC_BFCL_URL";
/** Environment variable that moves the BFCL cache folder. */
export const BFCL_DIR_ENV = "QTC_BFCL_DIR";

export const BFCL_DEFAULTS = {
  /** Default: raw.githubusercontent.com at BFCL_COMMIT, the data folder. */
  baseUrl: `https://raw.githubusercontent.com/ShishirPatil/gorilla/${BFCL_COMMIT}/berkeley-function-call-leaderboard/bfcl_eval/data/`,
  /** Default: 120,000 ms per file. */
  timeoutMs: 120_000,
} as const;

/** The single-turn Python categories (BFCL v4 names); Java/JS and multi-turn need BFCL's executors and converters. */
export const BFCL_CATEGORIES = [
  "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
  "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance",
] as const;
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];
/** What `--categories` defaults to: BFCL's non-live AST set (about 1.3 MB to download). */
export const BFCL_DEFAULT_CATEGORIES: readonly BfclCategory[] = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"];

/** File (relative to the data folder) → SHA-256 at BFCL_COMMIT. */
export type BfclManifest = Readonly<Record<string, string>>;

export const BFCL_MANIFEST: BfclManifest = Object.freeze({
  "BFCL_v4_simple_python.json": "82dd63ba502eb2520c6b5d1d9a5c4b590e03ff261565175561f6228a367d1991",
  "possible_answer/BFCL_v4_simple_python.json": "90cd5bc653690ee8e459b5b3f3fc9458606f7f3fcbf795bb51b7dc581f8c86dc",
  "BFCL_v4_multiple.json": "aef168155ebd74b7ac2401198b201343bc7d16d7a3d7e0d4e6d8ee82c6969b2a",
  "possible_answer/BFCL_v4_multiple.json": "244e00ce9395df948bcafc7bee64e8f9c87ef70887587d83cae45b13699f3047",
  "BFCL_v4_parallel.json": "19f51a82eff42e5d62541aa500115a056eb78f437c2ba1f10415fd7c8e5dda84",
  "possible_answer/BFCL_v4_parallel.json": "8a6aa19c1adddc6a5a2f7e40f9dbf30cc7e95815e7b830c90589ab318229e0f0",
  "BFCL_v4_parallel_multiple.json": "8863ea8433239f55c5f016154cf0830853c89f693c6ea270396a2fa121960579",
  "possible_answer/BFCL_v4_parallel_multiple.json": "5ebf24f458c1f16300c05505d83d6f0a1b68b79be273a033febd0d4f840507e3",
  "BFCL_v4_irrelevance.json": "2b6ed4c2e992cdcf5f1678a701851f944bef7550ee026ed1ddb89efed5be01a6",
  "BFCL_v4_live_simple.json": "1af2ac87dca47556db7b7e37e51e28b459a38b594e3c7b3c792b4903598ca0c4",
  "possible_answer/BFCL_v4_live_simple.json": "fec9cfa9744a936f9126981e85a2023da1e63e273eafebc81923a1162fad70ce",
  "BFCL_v4_live_multiple.json": "fd8ccfad4d911420d0e3341dbe2fff77d1d341da934248b9bb2bda24ab3a10c8",
  "possible_answer/BFCL_v4_live_multiple.json": "97e90d59c5bd76c55a2920ce93e5566e9046307d3f558578f085f9d3a56c3084",
  "BFCL_v4_live_parallel.json": "6c26e9fdc3350cf596e6d1ea9c179cbff834761bccf562f4141ed29a839ca421",
  "possible_answer/BFCL_v4_live_parallel.json": "8a9f189ff0e832ebbbbdade1fd95a7dbcc67406e9177df3f0aad76f59ab00350",
  "BFCL_v4_live_parallel_multiple.json": "21d4b9319c1faac431e22757b367ea28917fe467364c3a4b17f16ec06d4f6e79",
  "possible_answer/BFCL_v4_live_parallel_multiple.json": "f5b5f360556c5feb51db46fb9f56ee4b304f4b45b161599bbb14161c98a2873f",
  "BFCL_v4_live_irrelevance.json": "6559fda2beaceb609a2cd2e504c65b4a56cb448e1ef88fddfd199e163d163349",
  "BFCL_v4_live_relevance.json": "e03f9e241657a137cba48a89ee12f47bf3fcb7e4f6274263e9c699a0c974203a",
});

/** The files of a category: its questions, and its possible answers (none for the relevance categories). */
export function bfclFiles(category: BfclCategory): { questions: string; answers: string | null } {
  const questions = `BFCL_v4_${category}.json`;
  const answers = `possible_answer/${questions}`;
  return { questions, answers: category.includes("relevance") ? null : answers };
}

/** One question: its messages (the first and only turn), its functions, and the calls it expects. */
export interface BfclQuestion {
  id: string;
  category: BfclCategory;
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  functions: BfclFunction[];
  /** possible_answer's ground truth; empty for the relevance categories. */
  expected: BfclExpectedCall[];
}

export interface BfclDataOptions {
  /** A folder laid out like BFCL's data folder, used as is (nothing is downloaded or checked). Default: none. */
  dataDir?: string;
  /** Where downloads go. Default: `$QTC_BFCL_DIR`, else `~/.cache/qtc/bfcl/<commit>`. */
  cacheDir?: string;
  /** Default: `$QTC_BFCL_URL`, else BFCL_DEFAULTS.baseUrl. */
  baseUrl?: string;
  /** Default: BFCL_MANIFEST (tests pass their own fixture's). */
  manifest?: BfclManifest;
  /** Called as a file downloads (bytes so far; total when the server says). Default: none. */
  onProgress?: (file: string, received: number, total: number | null) => void;
  signal?: AbortSignal;
}

/** The folder holding `categories`' files: `dataDir` as given, else the cache, downloading what it lacks. */
export async function ensureBfclData(categories: readonly BfclCategory[], opts: BfclDataOptions = {}): Promise<string> {
  if (opts.dataDir !== undefined) {
    for (const c of categories) {
      const { questions } = bfclFiles(c);
      if (!existsSync(join(opts.dataDir, questions))) fail("file_not_found", `--data ${opts.dataDir}: no ${questions} (the folder should look like BFCL's bfcl_eval/data)`, { path: opts.dataDir });
    }
    return opts.dataDir;
  }
  const dir = opts.cacheDir ?? join(qtcCacheDir("bfcl", BFCL_DIR_ENV), BFCL_COMMIT.slice(0, 12));
  const manifest = opts.manifest ?? BFCL_MANIFEST;
  const base = opts.baseUrl ?? (process.env[BFCL_URL_ENV] || BFCL_DEFAULTS.baseUrl);
  for (const c of categories) {
    const { questions, answers } = bfclFiles(c);
    for (const file of answers === null ? [questions] : [questions, answers]) {
      const sha = manifest[file];
      if (sha === undefined) fail("invalid_option", `BFCL category ${c}: no checksum for ${file}`);
      const at = join(dir, file);
      if (existsSync(at) && sha256(readFileSync(at)) === sha) continue;
      await download(new URL(file, base.endsWith("/") ? base : `${base}/`).href, at, file, sha, opts);
    }
  }
  return dir;
}

async function download(url: string, at: string, file: string, sha: string, opts: BfclDataOptions): Promise<void> {
  const hint = "Offline, pass --data DIR: a copy of BFCL's bfcl_eval/data folder.";
  const timeout = AbortSignal.timeout(BFCL_DEFAULTS.timeoutMs);
  let body: Buffer;
  try {
    const res = await fetch(url, { redirect: "follow", signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout });
    if (!res.ok || !res.body) fail("download_failed", `BFCL data: ${url} answered HTTP ${res.status}. ${hint}`);
    const total = Number(res.headers.get("content-length")) || null;
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(Buffer.from(chunk));
      received += chunk.byteLength;
      opts.onProgress?.(file, received, total);
    }
    body = Buffer.concat(chunks);
  } catch (e) {
    if (e instanceof QtcException) throw e;
    if (opts.signal?.aborted) fail("aborted", "BFCL download stopped");
    fail("download_failed", `BFCL data: could not fetch ${url} (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}). ${hint}`);
  }
  const got = sha256(body);
  if (got !== sha) fail("download_failed", `BFCL data: ${file} has SHA-256 ${got.slice(0, 16)}…, expected ${sha.slice(0, 16)}… (pinned at gorilla ${BFCL_COMMIT.slice(0, 12)}). ${hint}`);
  await mkdir(join(at, ".."), { recursive: true });
  await writeFile(`${at}.part`, body);
  await rename(`${at}.part`, at);
}

const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

/** A category's questions, in file order, with their expected calls (matched by id). */
export function readBfclCategory(dir: string, category: BfclCategory): BfclQuestion[] {
  const { questions, answers } = bfclFiles(category);
  const expected = new Map<string, BfclExpectedCall[]>();
  if (answers !== null) {
    for (const [i, row] of jsonLines(join(dir, answers)).entries()) {
      const r = row as { id?: unknown; ground_truth?: unknown };
      if (typeof r.id !== "string" || !Array.isArray(r.ground_truth)) fail("invalid_option", `${answers} line ${i + 1}: not a BFCL answer (id, ground_truth)`);
      expected.set(r.id, r.ground_truth as BfclExpectedCall[]);
    }
  }
  return jsonLines(join(dir, questions)).map((row, i) => {
    const q = row as { id?: unknown; question?: unknown; function?: unknown };
    const turn = Array.isArray(q.question) ? (q.question[0] as unknown) : undefined;
    if (typeof q.id !== "string" || !Array.isArray(turn) || !Array.isArray(q.function)) fail("invalid_option", `${questions} line ${i + 1}: not a BFCL question (id, question, function)`);
    const want = expected.get(q.id);
    if (answers !== null && want === undefined) fail("invalid_option", `${answers}: no answer for ${q.id}`);
    return { id: q.id, category, messages: turn as BfclQuestion["messages"], functions: q.function as BfclFunction[], expected: want ?? [] };
  });
}

function jsonLines(file: string): unknown[] {
  if (!existsSync(file)) fail("file_not_found", `BFCL data: no ${file}`, { path: file });
  return readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l, i) => {
    try {
      return JSON.parse(l) as unknown;
    } catch {
      return fail("invalid_option", `${file} line ${i + 1}: not JSON`);
    }
  });
}
