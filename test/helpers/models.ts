// Owns: the models tests use: the synthetic tiny Qwen3 GGUF, written once into the repo's models/ folder and
// reused by every test file and worker; and pointing the suite's models directory there.

import { fileURLToPath } from "node:url";
import { LLAMA_DIR_ENV } from "../../src/engines/llama-build.js";
import { MODELS_DIR_ENV } from "../../src/model/paths.js";
import { ensureSyntheticModel } from "../../src/model/synthetic.js";

/** The repo's git-ignored models/ folder: the suite's (and CI's cached) models directory. */
export const TEST_MODELS_DIR = fileURLToPath(new URL("../../models", import.meta.url));

// qtc's default models directory is the user's cache folder; the suite keeps its synthetic models in the repo
// (CI caches that folder) unless QTC_MODELS_DIR already says otherwise. This file is a vitest setup file, so
// this runs before every test file, and CLI subprocesses inherit it.
if (!process.env[MODELS_DIR_ENV]) process.env[MODELS_DIR_ENV] = TEST_MODELS_DIR;

/** The repo's git-ignored .cache/llama.cpp: where `npm run llama:build` (run by .ci/run) puts llama-server. */
export const TEST_LLAMA_DIR = fileURLToPath(new URL("../../.cache/llama.cpp", import.meta.url));
if (!process.env[LLAMA_DIR_ENV]) process.env[LLAMA_DIR_ENV] = TEST_LLAMA_DIR;

/**
 * Absolute path of the synthetic tiny Qwen3 model (Q8_0, seed 0) in the models directory set above, writing it
 * on first use (about 2 s).
 */
export function tinyModelPath(): Promise<string> {
  return ensureSyntheticModel("tiny");
}

/**
 * Absolute path of the synthetic tiny Qwen3.5 stand-in (Qwen3.5's special ids, vocabulary size and template;
 * Q8_0, seed 0), written on first use like tinyModelPath.
 */
export function tinyQwen35ModelPath(): Promise<string> {
  return ensureSyntheticModel("tiny", { vocabulary: "qwen3.5" });
}

/** The synthetic tiny Qwen3.8 stand-in (Qwen3.8's template on the Qwen3.5 stand-in vocabulary), like tinyQwen35ModelPath. */
export function tinyQwen38ModelPath(): Promise<string> {
  return ensureSyntheticModel("tiny", { vocabulary: "qwen3.8" });
}
