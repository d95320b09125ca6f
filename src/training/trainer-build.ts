// Owns: building qtc's native training driver (native/qtc-finetune.cpp) with the system C++ compiler against the
// shared libraries of the llama.cpp build (src/engines/llama-build.ts owns that layout), cached next to them.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fail } from "../errors.js";
import { llamaBuildHasTrainingPatch, llamaLayout, type LlamaLayout } from "../engines/llama-build.js";

/** The driver's source, shipped with the package. */
export const TRAINER_SOURCE = fileURLToPath(new URL("../../native/qtc-finetune.cpp", import.meta.url));
/** The header it includes (its tokenization), part of its source hash. */
const TRAINER_HEADERS = [fileURLToPath(new URL("../../native/qtc-tokenize.hpp", import.meta.url))];
/**
 * The driver's file name inside the llama.cpp build's bin folder: `qtc-finetune-<source sha256, 12 hex>`, so
 * checkouts with different driver sources can share one llama.cpp build without rebuilding over each other.
 */
export const TRAINER_BINARY = "qtc-finetune";
export const trainerBinaryName = (hash: string = sourceHash()): string => `${TRAINER_BINARY}-${hash.slice(0, 12)}`;

export interface TrainerBuildOptions {
  /** The llama.cpp build to link against. Default: llamaLayout() (`$QTC_LLAMA_DIR`, else the cache folder). */
  layout?: LlamaLayout;
  /** C++ compiler. Default: $CXX, else "g++". */
  compiler?: string;
}

function sourceHash(): string {
  const h = createHash("sha256").update(readFileSync(TRAINER_SOURCE));
  for (const header of TRAINER_HEADERS) h.update(readFileSync(header));
  return h.digest("hex");
}

function run(cmd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    p.stdout.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-8000)));
    p.stderr.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-8000)));
    p.on("error", (e) => resolve({ code: null, output: `${cmd}: ${e.message}` }));
    p.on("close", (code) => resolve({ code, output }));
  });
}

/**
 * The path of the trainer, compiling it first (a few seconds) when it is missing or its source changed since
 * (a stamp holds the source's sha256). Throws `llama_build_failed` when llama.cpp is not built or g++ fails.
 */
export async function buildTrainer(opts: TrainerBuildOptions = {}): Promise<string> {
  const layout = opts.layout ?? llamaLayout();
  const hash = sourceHash();
  const bin = join(layout.bin, trainerBinaryName(hash));
  const stamp = `${bin}.json`;
  if (!existsSync(join(layout.bin, "libllama.so")) && !existsSync(join(layout.bin, "libllama.dylib"))) {
    fail("llama_build_failed", `llama.cpp's shared libraries are not in ${layout.bin}; run npm run llama:build first`, { exitCode: 1 });
  }
  // Checked even when the driver is built: it links the libraries at run time, and without the patch they abort
  // on its unlabelled positions (and would not train K and V).
  if (!llamaBuildHasTrainingPatch(layout)) {
    fail("llama_build_failed", `the llama.cpp build in ${layout.dir} predates qtc's training patch (without it attention's K and V never train); run npm run llama:build to rebuild it`, { exitCode: 1 });
  }
  const stamped = await fs.readFile(stamp, "utf8").then((t) => (JSON.parse(t) as { source?: string }).source).catch(() => undefined);
  if (existsSync(bin) && stamped === hash) return bin;
  const tmp = `${bin}.${process.pid}.tmp`;
  const args = [
    "-O3", "-std=c++17", TRAINER_SOURCE,
    `-I${join(layout.src, "include")}`, `-I${join(layout.src, "ggml", "include")}`,
    // llama-adapter.h (LoRA training reaches the adapter's tensors): internal, from the same source as the libraries
    `-I${join(layout.src, "src")}`,
    `-L${layout.bin}`, "-lllama", "-lggml", "-lggml-base",
    // Relative to the binary, which sits beside the libraries: the build folder can move (a binary stamped with
    // an absolute path from another checkout failed to load here).
    process.platform === "darwin" ? "-Wl,-rpath,@loader_path" : "-Wl,-rpath,$ORIGIN",
    "-o", tmp,
  ];
  const r = await run(opts.compiler ?? process.env.CXX ?? "g++", args);
  if (r.code !== 0) {
    await fs.rm(tmp, { force: true });
    fail("llama_build_failed", `compiling the trainer failed (install g++, or set CXX):\n${r.output.slice(-2000)}`, { exitCode: 1 });
  }
  await fs.rename(tmp, bin); // atomic: a concurrent build never sees a half-written binary
  await fs.writeFile(stamp, JSON.stringify({ source: hash }) + "\n");
  return bin;
}
