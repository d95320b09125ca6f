// Owns: the models tests use: the synthetic tiny Qwen3 GGUF, written once into models/ (or $QTC_MODELS_DIR) and
// reused by every test file and worker.

import { ensureSyntheticModel } from "../../src/model/synthetic.js";

/** Absolute path of the synthetic tiny Qwen3 model (Q8_0, seed 0), writing it on first use (about 2 s). */
export function tinyModelPath(): Promise<string> {
  return ensureSyntheticModel("tiny");
}
