// Owns: where MaskBench's data (guidance-ai/jsonschemabench, maskbench/data) comes from: a local copy the caller
// names, else the user cache, else a download at first use (progress on stderr, SHA-256 checked, then unpacked
// with the system `tar`). Nothing of it is in the repository.

import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { qtcCacheDir } from "../../dist/model/paths.js";

/** Where the data is downloaded from by default: one pinned commit of the public repository. */
export const MASKBENCH_SOURCE = Object.freeze({
  /** The commit the data was measured at. */
  commit: "ba103c73756198dd9b149ddc7db7867da7a077f6",
  /** Default: GitHub's tarball of that commit. */
  url: "https://codeload.github.com/guidance-ai/jsonschemabench/tar.gz/ba103c73756198dd9b149ddc7db7867da7a077f6",
  /**
   * SHA-256 of that tarball. Unset: it could not be computed where this was written (no route to GitHub); the
   * download then prints the hash it got and says it is unverified. Pin it with `QTC_MASKBENCH_SHA256`.
   */
  sha256: undefined as string | undefined,
});

/** The cache folder override (`$QTC_MASKBENCH_DIR`), else `$XDG_CACHE_HOME/qtc/maskbench`. */
export const MASKBENCH_DIR_ENV = "QTC_MASKBENCH_DIR";

export interface DataSource {
  /** Archive URL. Default: MASKBENCH_SOURCE.url (or `$QTC_MASKBENCH_URL`). */
  url?: string;
  /** Expected SHA-256 of the archive. Default: MASKBENCH_SOURCE.sha256 (or `$QTC_MASKBENCH_SHA256`). */
  sha256?: string;
  /** Cache folder. Default: qtcCacheDir("maskbench", QTC_MASKBENCH_DIR). */
  cacheDir?: string;
  /** Progress and notes. Default: process.stderr. */
  log?: NodeJS.WritableStream;
}

/** A folder of MaskBench schema files (`*.json`), found in `dir` itself or in its `maskbench/data`. */
export function dataFolder(dir: string): string | undefined {
  for (const d of [dir, join(dir, "maskbench", "data"), join(dir, "data")]) {
    if (existsSync(d) && statSync(d).isDirectory() && readdirSync(d).some((f) => f.endsWith(".json"))) return d;
  }
  return undefined;
}

/** Which schema files of a data folder a run takes (bench:maskbench's --only, --sample, --skip and --limit). */
export interface SchemaSelection {
  /** Only files whose name holds this. Default: all. */
  only?: string;
  /** About this many files: every k-th of the sorted list, so the same data always gives the same sample. Default: all. */
  sample?: number;
  /** Leave out this many first files of the sample. Default: 0. */
  skip?: number;
  /** At most this many files. Default: all. */
  limit?: number;
}

/** The schema files (`*.json`) of `dir` a run takes, in name order. */
export function selectSchemaFiles(dir: string, s: SchemaSelection = {}): string[] {
  let files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  if (s.only) files = files.filter((f) => f.includes(s.only!));
  const every = s.sample ? Math.max(1, Math.round(files.length / s.sample)) : 1;
  files = files.filter((_, i) => i % every === 0);
  if (s.skip) files = files.slice(s.skip);
  if (s.limit) files = files.slice(0, s.limit);
  return files;
}

/** Thrown with a one-line reason (offline, checksum, archive without maskbench/data). */
export class DataError extends Error {}

/** The data folder: the cached copy, or a download into the cache first. */
export async function ensureData(src: DataSource = {}): Promise<string> {
  const log = src.log ?? process.stderr;
  const cacheDir = src.cacheDir ?? qtcCacheDir("maskbench", MASKBENCH_DIR_ENV);
  const target = join(cacheDir, "data");
  const cached = existsSync(target) ? dataFolder(target) : undefined;
  if (cached) return cached;
  const url = src.url ?? process.env.QTC_MASKBENCH_URL ?? MASKBENCH_SOURCE.url;
  const want = src.sha256 ?? process.env.QTC_MASKBENCH_SHA256 ?? MASKBENCH_SOURCE.sha256;
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, "download-"));
  try {
    const archive = join(work, "data.tar.gz");
    const got = await download(url, archive, log);
    if (want && got !== want) throw new DataError(`maskbench: the download from ${url} has SHA-256 ${got}, expected ${want}; not used`);
    if (!want) log.write(`maskbench: SHA-256 ${got} (unverified: no pinned checksum; set QTC_MASKBENCH_SHA256 to pin it)\n`);
    const out = join(work, "x");
    mkdirSync(out);
    const tar = spawnSync("tar", ["-xzf", archive, "-C", out], { encoding: "utf8" });
    if (tar.status !== 0) throw new DataError(`maskbench: cannot unpack the archive: ${(tar.stderr || tar.error?.message || "").split("\n")[0]}`);
    const found = findData(out);
    if (!found) throw new DataError("maskbench: the archive holds no maskbench/data folder of schema files");
    rmSync(target, { recursive: true, force: true });
    renameSync(found, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function findData(dir: string, depth = 0): string | undefined {
  const direct = join(dir, "maskbench", "data");
  if (existsSync(direct) && dataFolder(direct)) return direct;
  if (depth > 2) return undefined;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const f = findData(join(dir, e.name), depth + 1);
    if (f) return f;
  }
  return undefined;
}

/** Stream `url` into `file` with a progress line; returns the SHA-256 (hex). */
async function download(url: string, file: string, log: NodeJS.WritableStream): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    const why = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
    throw new DataError(`maskbench: cannot download ${url} (${why}); offline? Pass --data DIR with a local copy of jsonschemabench's maskbench/data`);
  }
  if (!res.ok || !res.body) throw new DataError(`maskbench: downloading ${url} answered HTTP ${res.status}; pass --data DIR with a local copy`);
  const total = Number(res.headers.get("content-length") ?? 0);
  const hash = createHash("sha256");
  const out = createWriteStream(file);
  let got = 0;
  let shown = -1;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    got += chunk.length;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
    const pct = total > 0 ? Math.floor((got / total) * 100) : -1;
    const step = total > 0 ? pct : Math.floor(got / (8 << 20));
    if (step !== shown) {
      shown = step;
      log.write(`\rmaskbench: downloading ${total > 0 ? `${bar(got / total)} ${pct}%` : ""} ${(got / 1e6).toFixed(1)} MB`);
    }
  }
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
  log.write("\n");
  return hash.digest("hex");
}

function bar(share: number): string {
  const n = Math.round(Math.max(0, Math.min(1, share)) * 20);
  return `[${"#".repeat(n)}${".".repeat(20 - n)}]`;
}
