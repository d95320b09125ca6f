// Owns: the small registry of known real models (name → Hugging Face GGUF URI, tool-call format, size) and the
// default model.

import type { FormatId } from "../formats/types.js";

export interface RegistryModel {
  /** The name `--model` accepts, e.g. "qwen3-0.6b". */
  name: string;
  /** `hf:<user>/<repo>/<file>.gguf`, downloaded by node-llama-cpp's downloader. */
  uri: string;
  /** The tool-call format its chat template uses. */
  format: FormatId;
  /** Approximate download size in bytes (for messages; the downloader knows the exact size). */
  approxBytes: number;
  description: string;
}

/** The model qtc uses when none is named. */
export const DEFAULT_MODEL = "qwen3-0.6b";

/**
 * Known models. File names were checked against public references to these repositories (the official Qwen
 * GGUF repositories, and unsloth's GGUF of Qwen3-Coder, which has no official GGUF).
 */
export const MODEL_REGISTRY: readonly RegistryModel[] = [
  {
    name: "qwen3-0.6b",
    uri: "hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf",
    format: "hermes",
    approxBytes: 639_000_000,
    description: "Qwen3-0.6B, Q8_0, official Qwen GGUF (the default)",
  },
  {
    name: "qwen3-1.7b",
    uri: "hf:Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf",
    format: "hermes",
    approxBytes: 1_830_000_000,
    description: "Qwen3-1.7B, Q8_0, official Qwen GGUF",
  },
  {
    name: "qwen3-4b",
    uri: "hf:Qwen/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf",
    format: "hermes",
    approxBytes: 2_500_000_000,
    description: "Qwen3-4B, Q4_K_M, official Qwen GGUF",
  },
  {
    name: "qwen3-coder-30b-a3b",
    uri: "hf:unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf",
    format: "qwen3coder",
    approxBytes: 18_560_000_000,
    description: "Qwen3-Coder-30B-A3B-Instruct, Q4_K_M, unsloth GGUF (XML tool calls; needs about 20 GB of memory)",
  },
];

/** The registry entry called `name` (case-insensitive), if any. */
export function findRegistryModel(name: string): RegistryModel | undefined {
  const lower = name.toLowerCase();
  return MODEL_REGISTRY.find((m) => m.name === lower);
}
