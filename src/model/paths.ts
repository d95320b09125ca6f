// Owns: where models live on disk: the user's model cache (`$QTC_MODELS_DIR`, else `$XDG_CACHE_HOME/qtc/models`,
// else `~/.cache/qtc/models`), the folder older versions used (`<package root>/models`, still read), and the
// package root.

import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Environment variable that moves the models directory (tests, shared caches). */
export const MODELS_DIR_ENV = "QTC_MODELS_DIR";

/** The package's name on npm (its command is `qtc`; the npm name `qtc` belongs to another package). */
export const PACKAGE_NAME = "qwen-tool-calls";

/**
 * The qtc package root: the nearest folder above this module whose package.json is named PACKAGE_NAME. Works from
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
    return (JSON.parse(readFileSync(path, "utf8")) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

const set = (v: string | undefined): v is string => v !== undefined && v !== "";

/**
 * The models directory, where downloads and synthetic models are written: `$QTC_MODELS_DIR` when set, else
 * `$XDG_CACHE_HOME/qtc/models` (an absolute XDG_CACHE_HOME only, as the XDG spec says), else
 * `~/.cache/qtc/models`. Never inside the package: an npm install may be read-only or shared.
 */
export function modelsDir(env: NodeJS.ProcessEnv = process.env): string {
  return qtcCacheDir("models", MODELS_DIR_ENV, env);
}

/**
 * A folder of qtc's user cache: `$<override>` when set, else `$XDG_CACHE_HOME/qtc/<name>` (an absolute
 * XDG_CACHE_HOME only, as the XDG spec says), else `~/.cache/qtc/<name>`.
 */
export function qtcCacheDir(name: string, override: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[override];
  if (set(fromEnv)) return resolve(fromEnv);
  const xdg = env.XDG_CACHE_HOME;
  const cache = set(xdg) && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".cache");
  return join(cache, "qtc", name);
}

/**
 * Where qtc before 0.2 wrote models: `<package root>/models`. Files already there are still found (read only,
 * never written) unless `$QTC_MODELS_DIR` is set, which names the one folder to use. Null when not applicable.
 */
export function legacyModelsDir(env: NodeJS.ProcessEnv = process.env): string | null {
  return set(env[MODELS_DIR_ENV]) ? null : join(packageRoot(), "models");
}

/**
 * The path of `fileName` to read: in `dir` when it is there; else, for the default folder only, in the legacy
 * folder when it is there; else in `dir` (where it will be written).
 */
export function findModelFile(fileName: string, dir: string, env: NodeJS.ProcessEnv = process.env): string {
  const primary = join(dir, fileName);
  if (existsSync(primary) || resolve(dir) !== modelsDir(env)) return primary;
  const legacy = legacyModelsDir(env);
  const old = legacy === null ? null : join(legacy, fileName);
  return old !== null && existsSync(old) ? old : primary;
}
