// Owns: what `qtc models` reports: the registry (names, repositories, files, quantizations, sizes, whether each
// is downloaded and where) and every GGUF in the model cache. Reads the file system only; downloads nothing.

import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { localPathOf, remoteModelOf } from "./download.js";
import { legacyModelsDir, modelsDir as defaultModelsDir } from "./paths.js";
import { DEFAULT_MODEL, MODEL_REGISTRY } from "./registry.js";

export interface RegistryListing {
  name: string;
  /** True for the model qtc uses when none is named. */
  isDefault: boolean;
  uri: string;
  /** `<user>/<repo>` of an `hf:` URI. */
  repository: string;
  /** The GGUF's file name in its repository. */
  file: string;
  /** The quantization its file name states (`Q8_0`, `Q4_K_M`), or null. */
  quantization: string | null;
  format: string;
  approxBytes: number;
  description: string;
  /** Where the file is once downloaded, and whether it is there now. */
  localPath: string;
  downloaded: boolean;
}

export interface CachedModel {
  file: string;
  path: string;
  bytes: number;
  /** The registry name this file is the download of, or null (a synthetic model, an `hf:` or URL download). */
  registryName: string | null;
}

export interface ModelListing {
  /** The model cache (`$QTC_MODELS_DIR`, else `$XDG_CACHE_HOME/qtc/models`, else `~/.cache/qtc/models`). */
  modelsDir: string;
  /** The package's own `models/` folder an older qtc downloaded into, when it is read; else null. */
  legacyDir: string | null;
  registry: RegistryListing[];
  /** Every `.gguf` in the model cache (and the legacy folder), by file name. */
  cache: CachedModel[];
}

/** The quantization in a GGUF file name: the last `-`/`.`-separated part that looks like one (`Q8_0`, `UD-Q4_K_M`, `F16`). */
export function quantizationOf(file: string): string | null {
  const m = /[-_.]((?:UD-)?(?:I?Q\d[A-Z0-9_]*|F16|F32|BF16))\.gguf$/i.exec(file);
  return m ? m[1]!.toUpperCase() : null;
}

/** The registry and the cache as they stand. `modelsDir` defaults to modelsDir(). */
export function listModels(opts: { modelsDir?: string; env?: NodeJS.ProcessEnv } = {}): ModelListing {
  const env = opts.env ?? process.env;
  const dir = opts.modelsDir ?? defaultModelsDir(env);
  const legacy = opts.modelsDir === undefined ? legacyModelsDir(env) : null;
  const byFile = new Map<string, string>();
  const registry = MODEL_REGISTRY.map((m): RegistryListing => {
    const remote = remoteModelOf(m.name)!;
    byFile.set(remote.fileName, m.name);
    const localPath = localPathOf(remote, dir);
    const [user, repo, ...rest] = m.uri.slice("hf:".length).split("#")[0]!.split("/");
    const file = rest.join("/");
    return {
      name: m.name,
      isDefault: m.name === DEFAULT_MODEL,
      uri: m.uri,
      repository: `${user}/${repo}`,
      file,
      quantization: quantizationOf(file),
      format: m.format,
      approxBytes: m.approxBytes,
      description: m.description,
      localPath,
      downloaded: existsSync(localPath),
    };
  });
  const cache: CachedModel[] = [];
  for (const folder of [dir, ...(legacy !== null && legacy !== dir ? [legacy] : [])]) {
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder).sort()) {
      if (!file.toLowerCase().endsWith(".gguf")) continue;
      const path = join(folder, file);
      const s = statSync(path, { throwIfNoEntry: false });
      if (!s?.isFile()) continue;
      cache.push({ file, path, bytes: s.size, registryName: byFile.get(file) ?? null });
    }
  }
  return { modelsDir: dir, legacyDir: legacy !== null && existsSync(legacy) ? legacy : null, registry, cache };
}
