// The models directory (issue 18): the user's cache folder, never inside the installed package; models an older
// qtc downloaded into <package root>/models are still found there.

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { findModelFile, legacyModelsDir, modelsDir, packageRoot } from "../../src/model/paths.js";

describe("modelsDir", () => {
  test("QTC_MODELS_DIR wins, resolved to an absolute path", () => {
    expect(modelsDir({ QTC_MODELS_DIR: "/srv/models", XDG_CACHE_HOME: "/x" })).toBe("/srv/models");
    expect(modelsDir({ QTC_MODELS_DIR: "rel" })).toBe(join(process.cwd(), "rel"));
  });

  test("else $XDG_CACHE_HOME/qtc/models, else ~/.cache/qtc/models (a relative XDG_CACHE_HOME is ignored)", () => {
    expect(modelsDir({ XDG_CACHE_HOME: "/var/cache/u" })).toBe("/var/cache/u/qtc/models");
    expect(modelsDir({ HOME: "/home/u" })).toBe("/home/u/.cache/qtc/models");
    expect(modelsDir({ HOME: "/home/u", XDG_CACHE_HOME: "cache" })).toBe("/home/u/.cache/qtc/models");
    expect(modelsDir({ QTC_MODELS_DIR: "", XDG_CACHE_HOME: "" })).toBe(join(homedir(), ".cache", "qtc", "models"));
  });

  test("the default is never inside the package", () => {
    expect(modelsDir({ HOME: "/home/u" }).startsWith(packageRoot())).toBe(false);
  });
});

describe("models downloaded by an older qtc into <package root>/models", () => {
  const name = `paths-test-${process.pid}.gguf`;
  const legacy = join(packageRoot(), "models");
  const cache = join(packageRoot(), "models", `paths-test-cache-${process.pid}`);
  const env = { XDG_CACHE_HOME: cache };
  afterAll(() => {
    rmSync(join(legacy, name), { force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  test("are read from there when the cache folder lacks them; new files go to the cache folder", () => {
    const dir = modelsDir(env);
    expect(findModelFile(name, dir, env)).toBe(join(dir, name));
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, name), "");
    expect(legacyModelsDir(env)).toBe(legacy);
    expect(findModelFile(name, dir, env)).toBe(join(legacy, name));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), "");
    expect(findModelFile(name, dir, env)).toBe(join(dir, name));
  });

  test("are not looked for when QTC_MODELS_DIR or an explicit folder names where models are", () => {
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, name), "");
    expect(legacyModelsDir({ QTC_MODELS_DIR: "/m" })).toBeNull();
    expect(findModelFile(name, "/m", { QTC_MODELS_DIR: "/m" })).toBe(join("/m", name));
    expect(findModelFile(name, "/elsewhere", env)).toBe(join("/elsewhere", name));
  });
});
