// Owns: the small registry of known real models (name → Hugging Face GGUF URI, tool-call format, size), the
// names users already type for them (node-llama-cpp's `hf:<user>/<repo>:<quant>`, Ollama's `qwen3:0.6b`), and the
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
  /**
   * Other names that mean this entry, matched case-insensitively: node-llama-cpp's `hf:<user>/<repo>:<quant>`
   * form (derived from `uri`) and the Ollama tag. An Ollama tag names the model, not Ollama's file: qtc still
   * downloads `uri` (Ollama's own default quantization may differ).
   */
  aliases: readonly string[];
}

type Entry = Omit<RegistryModel, "aliases"> & { ollama?: string };

/** `hf:<user>/<repo>/<name>-<QUANT>.gguf` → `hf:<user>/<repo>:<QUANT>`, node-llama-cpp's short form. */
function hfShortForm(uri: string): string | null {
  const m = /^hf:([^/]+)\/([^/]+)\/(?:[^/]+-)?([A-Za-z0-9_]+)\.gguf$/.exec(uri);
  return m ? `hf:${m[1]}/${m[2]}:${m[3]}` : null;
}

const withAliases = ({ ollama, ...e }: Entry): RegistryModel => ({
  ...e,
  aliases: [hfShortForm(e.uri), ollama].filter((a): a is string => a !== null && a !== undefined),
});

/** The model qtc uses when none is named. */
export const DEFAULT_MODEL = "qwen3-0.6b";

/**
 * Known models. File names were checked against public references to these repositories (the official Qwen
 * GGUF repositories, and unsloth's GGUFs of Qwen3-Coder, Qwen3.5 and Qwen3.6, which qtc found no official GGUF
 * of). Qwen3.5 and Qwen3.6 use the `qwen35` / `qwen35moe` architectures of the bundled llama.cpp. Qwen3.8-27B: ggml-org's
 * GGUF (the one Qwen's model card links) and unsloth's; its Flash-Next builds (unsloth/Qwen3.8-Flash-Next-GGUF) are
 * split into several files under per-quantization folders and use the `qwen4exp` architecture, which the bundled
 * llama.cpp does not know, so they are not listed.
 */
export const MODEL_REGISTRY: readonly RegistryModel[] = (
  [
  {
    name: "qwen3-0.6b",
    uri: "hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf",
    format: "hermes",
    approxBytes: 639_000_000,
    description: "Qwen3-0.6B, Q8_0, official Qwen GGUF (the default)",
    ollama: "qwen3:0.6b",
  },
  {
    name: "qwen3-1.7b",
    uri: "hf:Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf",
    format: "hermes",
    approxBytes: 1_830_000_000,
    description: "Qwen3-1.7B, Q8_0, official Qwen GGUF",
    ollama: "qwen3:1.7b",
  },
  {
    name: "qwen3-4b",
    uri: "hf:Qwen/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf",
    format: "hermes",
    approxBytes: 2_500_000_000,
    description: "Qwen3-4B, Q4_K_M, official Qwen GGUF",
    ollama: "qwen3:4b",
  },
  {
    name: "qwen3-coder-30b-a3b",
    uri: "hf:unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf",
    format: "qwen3coder",
    approxBytes: 18_560_000_000,
    description: "Qwen3-Coder-30B-A3B-Instruct, Q4_K_M, unsloth GGUF (XML tool calls; needs about 20 GB of memory)",
    ollama: "qwen3-coder:30b",
  },
  {
    name: "qwen3.5-0.8b",
    uri: "hf:unsloth/Qwen3.5-0.8B-GGUF/Qwen3.5-0.8B-Q4_K_M.gguf",
    format: "qwen35",
    approxBytes: 530_000_000,
    description: "Qwen3.5-0.8B, Q4_K_M, unsloth GGUF (XML tool calls, Qwen3.5 template)",
    ollama: "qwen3.5:0.8b",
  },
  {
    name: "qwen3.5-2b",
    uri: "hf:unsloth/Qwen3.5-2B-GGUF/Qwen3.5-2B-Q4_K_M.gguf",
    format: "qwen35",
    approxBytes: 1_342_000_000,
    description: "Qwen3.5-2B, Q4_K_M, unsloth GGUF (XML tool calls, Qwen3.5 template)",
    ollama: "qwen3.5:2b",
  },
  {
    name: "qwen3.5-4b",
    uri: "hf:unsloth/Qwen3.5-4B-GGUF/Qwen3.5-4B-Q4_K_M.gguf",
    format: "qwen35",
    approxBytes: 2_740_937_888,
    description: "Qwen3.5-4B, Q4_K_M, unsloth GGUF (XML tool calls, Qwen3.5 template)",
    ollama: "qwen3.5:4b",
  },
  {
    name: "qwen3.6-35b-a3b",
    uri: "hf:unsloth/Qwen3.6-35B-A3B-GGUF/Qwen3.6-35B-A3B-UD-Q4_K_M.gguf",
    format: "qwen36",
    approxBytes: 22_120_000_000,
    description: "Qwen3.6-35B-A3B, UD-Q4_K_M, unsloth GGUF (XML tool calls; the smallest Qwen3.6 qtc found; needs about 24 GB of memory)",
  },
  {
    name: "qwen3.8-27b",
    uri: "hf:ggml-org/Qwen3.8-27B-GGUF/Qwen3.8-27B-Q4_K_M.gguf",
    format: "qwen38",
    approxBytes: 18_973_870_432,
    description: "Qwen3.8-27B, Q4_K_M, ggml-org's GGUF (the one Qwen's model card links; XML tool calls, reasoning_effort levels; needs about 22 GB of memory)",
  },
  {
    name: "qwen3.8-27b-q8",
    uri: "hf:ggml-org/Qwen3.8-27B-GGUF/Qwen3.8-27B-Q8_0.gguf",
    format: "qwen38",
    approxBytes: 28_595_763_552,
    description: "Qwen3.8-27B, Q8_0, ggml-org's GGUF (needs about 32 GB of memory)",
  },
  {
    name: "qwen3.8-27b-ud",
    uri: "hf:unsloth/Qwen3.8-27B-GGUF/Qwen3.8-27B-UD-Q4_K_XL.gguf",
    format: "qwen38",
    approxBytes: 17_600_000_000,
    description: "Qwen3.8-27B, UD-Q4_K_XL, unsloth GGUF (the most-used community quantization; needs about 21 GB of memory)",
  },
  ] satisfies Entry[]
).map(withAliases);

/** The registry entry called `name` or one of its aliases (case-insensitive), if any. */
export function findRegistryModel(name: string): RegistryModel | undefined {
  const lower = name.trim().toLowerCase();
  return MODEL_REGISTRY.find((m) => m.name === lower || m.aliases.some((a) => a.toLowerCase() === lower));
}

/**
 * For a spec in an alias form that names no entry (another quantization, another size), what to type instead;
 * null when the spec is not in an alias form. (qtc resolves these forms from the registry only: it does not ask
 * Hugging Face or Ollama which file a tag means.)
 */
export function unknownAliasHint(spec: string): string | null {
  const hf = /^hf:([^/:]+)\/([^/:]+):(.+)$/i.exec(spec);
  if (hf) {
    const known = MODEL_REGISTRY.flatMap((m) => m.aliases).filter((a) => a.toLowerCase().startsWith(`hf:${hf[1]}/${hf[2]}:`.toLowerCase()));
    return (
      `"${spec}" names no file qtc knows${known.length ? ` (it knows ${known.join(", ")})` : ""}: ` +
      `name the file instead, hf:${hf[1]}/${hf[2]}/<file>.gguf`
    );
  }
  if (/^[a-z0-9][a-z0-9._-]*:[a-z0-9][a-z0-9._-]*$/i.test(spec) && !/^(synthetic|replay|https?|file):/i.test(spec)) {
    const tags = MODEL_REGISTRY.flatMap((m) => m.aliases.filter((a) => !a.startsWith("hf:"))).join(", ");
    return `"${spec}" is not a model qtc knows by that name (it knows ${tags}): pass a GGUF file, an hf: URI, or a registry name`;
  }
  return null;
}
