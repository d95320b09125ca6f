// Owns: turning a `--model` value into a local GGUF path: a file, an `hf:` URI or URL (downloaded once into the
// models directory), a registry name or one of its aliases (`hf:<user>/<repo>:<quant>`, Ollama's `qwen3:0.6b`),
// or `synthetic:<shape>` / `synthetic:qwen3.5-<shape>` (written once into the models directory).

import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { fail } from "../errors.js";
import type { FormatId } from "../formats/types.js";
import { type PullOptions, localPathOf, pullModel, remoteModelOf } from "./download.js";
import { modelsDir as defaultModelsDir } from "./paths.js";
import { QWEN3_SHAPES, SHAPES, type ShapeName } from "./qwen3-shapes.js";
import { DEFAULT_MODEL, MODEL_REGISTRY, findRegistryModel, unknownAliasHint } from "./registry.js";
import { ensureSyntheticModel, readSyntheticInfo, syntheticModelName } from "./synthetic.js";

export type ModelSource = "file" | "hf" | "url" | "registry" | "synthetic";

export interface ResolvedModel {
  /** Absolute path of the GGUF file. */
  path: string;
  /** A short name for reports: the registry name, `qtc-synthetic-<shape>`, or the file name without `.gguf`. */
  name: string;
  /** True for qtc's synthetic models (random weights); reports must say so. */
  synthetic: boolean;
  source: ModelSource;
  /** The tool-call format, when the registry knows it (otherwise detect it from the chat template). */
  format?: FormatId;
  /** The remote URI the file came from (hf, url and registry sources). */
  uri?: string;
}

/**
 * Makes a trained stand-in (`synthetic:tiny-tuned`) or finds it made and current, returning its GGUF path. The
 * training stage has the one qtc uses (`ensureStandIn`, src/training/stand-ins.ts); the callers that load models
 * for a user pass it in, so this stage never reaches up into training.
 */
export type StandInMaker = (name: string, opts: { modelsDir: string }) => Promise<string>;

export interface ResolveOptions extends Omit<PullOptions, "force"> {
  /** Download remote models that are not in the models directory yet. Default: true. */
  download?: boolean;
  /** Makes the trained stand-ins. Default: none (a stand-in spec fails with `model_not_found`, saying how to make it). */
  standIns?: StandInMaker;
}

const QWEN35_PREFIX = "qwen3.5-";
const QWEN38_PREFIX = "qwen3.8-";
/**
 * The synthetic models `--model` takes: `synthetic:<shape>` (Qwen3's tokenizer), `synthetic:qwen3.5-<shape>` and
 * `synthetic:qwen3.8-<shape>` (Qwen3.8's template on the Qwen3.5 stand-in vocabulary).
 */
const SYNTHETIC_SPECS: readonly string[] = [
  ...SHAPES.map((s) => `synthetic:${s}`),
  ...SHAPES.map((s) => `synthetic:${QWEN35_PREFIX}${s}`),
  ...SHAPES.map((s) => `synthetic:${QWEN38_PREFIX}${s}`),
];

/** The `--model` forms, for help texts and error messages. */
export const MODEL_SPEC_HELP =
  `a GGUF file path, an hf:<user>/<repo>/<file>.gguf URI, an http(s) URL, a registry name ` +
  `(${MODEL_REGISTRY.map((m) => m.name).join(", ")}; aliases such as ${MODEL_REGISTRY[0]!.aliases.join(" and ")} work too), ${SYNTHETIC_SPECS.join(" / ")}, or a trained stand-in (synthetic:tiny-tuned / synthetic:tiny-weak / synthetic:tiny-distilled)`;

/** The trained stand-ins (src/training/stand-ins.ts makes them): `synthetic:<name>`. */
export const STAND_IN_SPECS: readonly string[] = ["tiny-tuned", "tiny-weak", "tiny-distilled"];

/** What reports show for a stand-in: it says "trained stand-in", never plain "synthetic". */
export const standInModelName = (name: string): string => `qtc-trained-stand-in-${name}`;
/** Whether a report's model name is a trained stand-in's (see standInModelName). */
export const isStandInModelName = (name: string): boolean => STAND_IN_SPECS.some((s) => name === standInModelName(s));

/** The stand-in a GGUF is, from the sidecar the training stage writes next to it; null for any other file. */
function standInMark(file: string): string | null {
  try {
    const v = JSON.parse(readFileSync(`${file}.stand-in.json`, "utf8")) as { name?: unknown };
    return typeof v.name === "string" && STAND_IN_SPECS.includes(v.name) ? v.name : null;
  } catch {
    return null;
  }
}

/**
 * Resolve a model spec to a local file, downloading or writing it first when needed. Throws QtcException:
 * `model_not_found` (exit 2) for a missing file, an unknown name or scheme; `download_failed` (exit 1).
 */
export async function resolveModel(spec: string = DEFAULT_MODEL, opts: ResolveOptions = {}): Promise<ResolvedModel> {
  const trimmed = spec.trim();
  const dir = opts.modelsDir ?? defaultModelsDir();
  if (trimmed.startsWith("synthetic:") && STAND_IN_SPECS.includes(trimmed.slice("synthetic:".length))) {
    // Trained stand-ins are made by the training stage (it runs the harness's tools for its data), which the
    // caller passes in: this stage stays below it.
    const name = trimmed.slice("synthetic:".length);
    if (!opts.standIns) fail("model_not_found", `${trimmed} is a trained stand-in, made by qtc's training stage: load it through the qtc CLI (run, chat, agent, serve, bench), or pass standIns (ensureStandIn from qtc's training stage)`);
    const path = await opts.standIns(name, { modelsDir: dir });
    return { path, name: standInModelName(name), synthetic: true, source: "synthetic", format: "hermes" };
  }
  if (trimmed.startsWith("synthetic:")) {
    const rest = trimmed.slice("synthetic:".length);
    // `synthetic:qwen3.5-<shape>` / `qwen3.8-<shape>` carry Qwen3.5's tokenizer layout and that model's template;
    // the format is detected from the template.
    const vocabulary = rest.startsWith(QWEN35_PREFIX) ? "qwen3.5" : rest.startsWith(QWEN38_PREFIX) ? "qwen3.8" : "qwen3";
    const shape = (vocabulary === "qwen3" ? rest : rest.slice(QWEN35_PREFIX.length)) as ShapeName;
    if (!(shape in QWEN3_SHAPES)) fail("model_not_found", `unknown synthetic shape "${rest}": use ${SYNTHETIC_SPECS.join(", ")}`);
    const path = await ensureSyntheticModel(shape, { modelsDir: dir, vocabulary });
    return { path, name: syntheticModelName(shape, vocabulary), synthetic: true, source: "synthetic", format: vocabulary === "qwen3" ? "hermes" : undefined };
  }

  const entry = findRegistryModel(trimmed);
  // An alias form naming no entry (hf:Qwen/Qwen3-0.6B-GGUF:Q4_0, qwen3:8b) says what to type instead.
  const hint = entry ? null : unknownAliasHint(trimmed);
  if (hint !== null && !existsSync(trimmed)) fail("model_not_found", hint);
  const remote = remoteModelOf(trimmed);
  if (remote !== null) {
    const source: ModelSource = entry ? "registry" : remote.hf ? "hf" : "url";
    const name = entry?.name ?? basename(remote.fileName, ".gguf");
    const local = localPathOf(remote, dir);
    if (!existsSync(local)) {
      if (opts.download === false) fail("model_not_found", `${trimmed} is not downloaded yet (${local}): run qtc pull ${trimmed}`);
      await pullModel(trimmed, { ...opts, modelsDir: dir });
    }
    return { path: local, name, synthetic: false, source, format: entry?.format, uri: remote.uri };
  }

  if (existsSync(trimmed) && statSync(trimmed).isFile()) {
    const info = await readSyntheticInfo(trimmed).catch(() => null);
    const standIn = standInMark(trimmed);
    return {
      path: resolve(trimmed),
      name: standIn ? standInModelName(standIn) : info ? syntheticModelName(info.shape, info.vocabulary) : basename(trimmed).replace(/\.gguf$/i, ""),
      synthetic: info !== null,
      source: "file",
    };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !/^[a-z]:[\\/]/i.test(trimmed)) {
    fail("model_not_found", `unknown model scheme in "${trimmed}": --model takes ${MODEL_SPEC_HELP}`);
  }
  fail("model_not_found", `no model file or registry name "${trimmed}": --model takes ${MODEL_SPEC_HELP}`, { path: trimmed });
}
