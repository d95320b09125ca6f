// Owns: building llama.cpp's own programs (llama-server, the trainer) from the source node-llama-cpp ships, once,
// into a cache folder (`$QTC_LLAMA_DIR`, else `$XDG_CACHE_HOME/qtc/llama.cpp`, else `~/.cache/qtc/llama.cpp`), and
// finding them there. The engines (llama-server) and fine-tuning share this one build.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fail } from "../errors.js";
import { qtcCacheDir } from "../model/paths.js";

/** Environment variable that moves the llama.cpp build folder (tests, CI, a shared cache). */
export const LLAMA_DIR_ENV = "QTC_LLAMA_DIR";

/** The programs qtc builds: llama-server for the engine, llama.cpp's finetune example as the trainer's reference. */
export const LLAMA_TARGETS = ["llama-server", "llama-finetune"] as const;
export type LlamaTarget = (typeof LLAMA_TARGETS)[number];

/**
 * Configure flags. No curl or OpenSSL (the server only listens on plain HTTP here and never downloads), no web
 * UI (it would be fetched), no tests; native CPU flags, since the build runs on the machine that uses it, but no
 * AMX: a virtual machine can advertise `amx_int8` in cpuid while ggml's AMX Q8_0 kernel dies with SIGILL on the
 * first matrix product (seen on a Xeon VM: llama-server never became healthy on a Q8_0 model).
 */
const NO_AMX = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16";
const CMAKE_FLAGS = [
  "-DCMAKE_BUILD_TYPE=Release",
  "-DLLAMA_CURL=OFF",
  "-DLLAMA_OPENSSL=OFF",
  "-DLLAMA_BUILD_TESTS=OFF",
  "-DLLAMA_USE_PREBUILT_UI=OFF",
  "-DLLAMA_BUILD_UI=OFF",
  "-DGGML_NATIVE=ON",
  `-DCMAKE_C_FLAGS=${NO_AMX}`,
  `-DCMAKE_CXX_FLAGS=${NO_AMX}`,
];

/**
 * qtc's changes to llama.cpp's training, applied to the clone before it builds (llama-server's decoding is
 * unchanged; the changes act only in training, inside `llama_opt_epoch` and ggml-opt):
 * - attention reads each ubatch's own K and V instead of the KV cache's copies. The cache write carries no
 *   gradient, so without it `attn_k`, `attn_v` and `attn_k_norm` never train (llama.cpp's open PR #28520;
 *   docs/training.md has the measurement);
 * - only positions with a label (>= 0) output logits. The output head over Qwen3's 151,936-token vocabulary is
 *   most of a step's cost, and most positions of a chat window are prompt;
 * - the gradient accumulators are zeroed at each step's backward pass (ggml-opt never reset them for graphs built
 *   per call, so each step applied the sum of all earlier gradients; test/training/sgd-proof.test.ts).
 */
export const LLAMA_PATCH = fileURLToPath(new URL("../../native/llama-training.patch", import.meta.url));

function patchHash(): string {
  return createHash("sha256").update(readFileSync(LLAMA_PATCH)).digest("hex").slice(0, 12);
}

/** The cache folder holding `src/` (the cloned source) and `build/`. */
export function llamaDir(env: NodeJS.ProcessEnv = process.env): string {
  return qtcCacheDir("llama.cpp", LLAMA_DIR_ENV, env);
}

export interface LlamaLayout {
  dir: string;
  src: string;
  build: string;
  /** Where the built programs and shared libraries are. */
  bin: string;
  log: string;
  stamp: string;
}

export function llamaLayout(dir = llamaDir()): LlamaLayout {
  const build = join(dir, "build");
  return { dir, src: join(dir, "src"), build, bin: join(build, "bin"), log: join(dir, "build.log"), stamp: join(build, "qtc-build.json") };
}

/** The git bundle of llama.cpp's source inside the installed node-llama-cpp package. */
export function bundledSource(): { bundle: string; tag: string } {
  const root = nodeLlamaCppRoot();
  const bundle = join(root, "llama", "gitRelease.bundle");
  if (!existsSync(bundle)) fail("invalid_option", `node-llama-cpp has no llama.cpp source bundle at ${bundle}; reinstall it (npm install)`);
  const info = JSON.parse(readFileSync(join(root, "llama", "llama.cpp.info.json"), "utf8")) as { tag?: string };
  return { bundle, tag: info.tag ?? "unknown" };
}

/** The installed node-llama-cpp package folder (its `exports` hide package.json, so walk up from its entry). */
function nodeLlamaCppRoot(): string {
  const entry = createRequire(import.meta.url).resolve("node-llama-cpp");
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, "llama", "llama.cpp.info.json"))) return dir;
  }
  fail("invalid_option", `cannot find node-llama-cpp's folder above ${entry}; reinstall it (npm install)`);
}

interface Stamp {
  tag: string;
  /** LLAMA_PATCH's sha256 (12 hex) the source was patched with. */
  patch?: string;
  flags: string[];
  targets: string[];
}

function readStamp(path: string): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Stamp;
  } catch {
    return undefined;
  }
}

/**
 * Whether the build in `layout` has qtc's training patch (LLAMA_PATCH, as it is now). llama-server runs either
 * way; training needs it, or attention's K and V weights stay as they started.
 */
export function llamaBuildHasTrainingPatch(layout = llamaLayout()): boolean {
  return readStamp(layout.stamp)?.patch === patchHash();
}

/** Path of a built program, or undefined when it has not been built (from this source and these flags). */
export function findLlamaProgram(target: LlamaTarget, layout = llamaLayout()): string | undefined {
  const path = join(layout.bin, target);
  const stamp = readStamp(layout.stamp);
  if (!existsSync(path) || !stamp?.targets.includes(target)) return undefined;
  return path;
}

/** Path of a built program, or a clear error saying how to build it. */
export function requireLlamaProgram(target: LlamaTarget, layout = llamaLayout()): string {
  const path = findLlamaProgram(target, layout);
  if (path === undefined) fail("invalid_option", `${target} is not built in ${layout.dir}; run \`npm run llama:build\` (or \`qtc llama-build\`) first (about 10-15 minutes on 2 cores)`);
  return path;
}

export interface BuildOptions {
  targets?: readonly LlamaTarget[];
  /** Parallel compile jobs. Default: 2. */
  jobs?: number;
  /** Progress lines (stage names, where the log is). Default: none. */
  onProgress?: (line: string) => void;
  layout?: LlamaLayout;
}

/**
 * Build the targets that are missing (all of LLAMA_TARGETS by default); a no-op when they are built. Clones the
 * bundled source on first use; a different llama.cpp version or flags start from a clean build folder.
 */
export async function buildLlama(options: BuildOptions = {}): Promise<LlamaLayout> {
  const layout = options.layout ?? llamaLayout();
  const targets = options.targets ?? LLAMA_TARGETS;
  const say = options.onProgress ?? (() => undefined);
  const { bundle, tag } = bundledSource();
  const stamp = readStamp(layout.stamp);
  const patch = patchHash();
  const sameBuild = stamp?.tag === tag && stamp.patch === patch && stamp.flags.join(" ") === CMAKE_FLAGS.join(" ");
  const missing = targets.filter((t) => !(sameBuild && stamp.targets.includes(t) && existsSync(join(layout.bin, t))));
  if (missing.length === 0) return layout;
  mkdirSync(layout.dir, { recursive: true });
  writeFileSync(layout.log, "");
  if (!sameBuild || !existsSync(join(layout.src, ".git"))) {
    rmSync(layout.src, { recursive: true, force: true });
    rmSync(layout.build, { recursive: true, force: true });
    say(`cloning llama.cpp ${tag} from node-llama-cpp's source bundle`);
    await runLogged("git", ["clone", "--quiet", bundle, layout.src], layout.log);
    say("patching llama.cpp's training (native/llama-training.patch)");
    await runLogged("git", ["-C", layout.src, "apply", LLAMA_PATCH], layout.log);
  }
  if (!existsSync(join(layout.build, "CMakeCache.txt"))) {
    say("configuring (cmake)");
    await runLogged("cmake", ["-S", layout.src, "-B", layout.build, ...CMAKE_FLAGS], layout.log);
  }
  say(`building ${missing.join(", ")} (about 10-15 minutes on 2 cores the first time; log: ${layout.log})`);
  const progress = new BuildProgress((pct, step) => say(`building: ${pct}%${step ? ` (${step})` : ""}`));
  await runLogged("cmake", ["--build", layout.build, "-j", String(options.jobs ?? 2), "--target", ...missing], layout.log, (text) => progress.feed(text));
  const built = new Set([...(sameBuild ? stamp.targets : []), ...missing]);
  writeFileSync(layout.stamp, JSON.stringify({ tag, patch, flags: CMAKE_FLAGS, targets: [...built].sort() } satisfies Stamp, null, 2) + "\n");
  return layout;
}

/**
 * Reads a build's output as it arrives and reports its progress: make's `[ 42%] Building CXX object …` and
 * ninja's `[12/345] …` lines. Reports only when the percentage reaches the next multiple of `every` (and at
 * 100%), so a 15-minute build prints about 20 lines, not thousands.
 */
export class BuildProgress {
  private partial = "";
  private shown = -1;

  constructor(
    private readonly report: (percent: number, step: string) => void,
    /** Percentage points between two reports. Default: 5. */
    private readonly every = 5,
  ) {}

  feed(text: string): void {
    const lines = (this.partial + text).split(/\r?\n/);
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    const make = /^\[\s*(\d{1,3})%\]\s*(.*)$/.exec(line);
    const ninja = make ? null : /^\[(\d+)\/(\d+)\]\s*(.*)$/.exec(line);
    const percent = make ? Number(make[1]) : ninja ? Math.floor((100 * Number(ninja[1])) / Math.max(1, Number(ninja[2]))) : null;
    if (percent === null || percent > 100) return;
    const bucket = percent === 100 ? 100 : Math.floor(percent / this.every) * this.every;
    if (bucket <= this.shown) return;
    this.shown = bucket;
    this.report(percent, stepName((make ? make[2] : ninja![3]) ?? ""));
  }
}

/** `Building CXX object src/CMakeFiles/llama.dir/llama-model.cpp.o` → `llama-model.cpp`; other lines as they are, short. */
function stepName(text: string): string {
  const object = /^Building \w+ object (?:.*\/)?([^/]+?)\.o$/.exec(text.trim());
  if (object) return object[1]!;
  const t = text.trim();
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}

/** Run a build step with its output appended to the log; a failure says which step and shows the log's tail. */
function runLogged(file: string, args: string[], log: string, onOutput?: (text: string) => void): Promise<void> {
  return new Promise((done, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      reject(e);
      return;
    }
    const append = (chunk: Buffer) => writeFileSync(log, chunk, { flag: "a" });
    child.stdout?.on("data", (chunk: Buffer) => {
      append(chunk);
      onOutput?.(chunk.toString("utf8"));
    });
    child.stderr?.on("data", append);
    child.on("error", (e: NodeJS.ErrnoException) => {
      const hint = e.code === "ENOENT" ? `${file} is not installed; install it (Debian: apt-get install ${file === "git" ? "git" : "cmake g++"})` : e.message;
      reject(buildError(`${file} could not start: ${hint}`));
    });
    child.on("close", (code) => {
      if (code === 0) done();
      else reject(buildError(`\`${file} ${args.slice(0, 3).join(" ")} …\` failed (exit ${code}); the end of ${log}:\n${logTail(log)}`));
    });
  });
}

function logTail(log: string, lines = 20): string {
  return readFileSync(log, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}

function buildError(message: string): Error {
  try {
    fail("llama_build_failed", message);
  } catch (e) {
    return e as Error;
  }
}
