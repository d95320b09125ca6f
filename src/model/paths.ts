// Owns: where models live on disk: the package root and the models directory (env QTC_MODELS_DIR overrides).

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Environment variable that moves the models directory (tests, shared caches). */
export const MODELS_DIR_ENV = "QTC_MODELS_DIR";

/**
 * The qtc package root: the nearest folder above this module whose package.json is named "qtc". Works from
 * `src/model/` (vitest, tsx) and from `dist/model/` (the built CLI).
 */
export function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && isQtcManifest(manifest)) return dir;
    if (dirname(dir) === dir) return resolve(here, "..", "..");
  }
}

function isQtcManifest(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { name?: unknown }).name === "qtc";
  } catch {
    return false;
  }
}

/** The models directory: `$QTC_MODELS_DIR` when set, else `<package root>/models`. */
export function modelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[MODELS_DIR_ENV];
  return fromEnv !== undefined && fromEnv !== "" ? resolve(fromEnv) : join(packageRoot(), "models");
}
