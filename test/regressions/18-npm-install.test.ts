// Issue 18, item 1: an npm-installed qtc could not run its main job. The packed tarball left bench/ out (no bench
// tasks) and had no LICENSE, and models were written into node_modules/qtc/models/ (a read-only or shared install
// breaks). This packs the package, installs the tarball into a temporary app offline, and runs the bench there.
//
// Offline: `npm install --offline <tarball>` needs each dependency's registry document, which this machine's npm
// cache does not hold in the form npm asks for (ENOTCACHED), so the app gets a lockfile derived from the repo's
// (the same versions and integrity hashes) and `npm ci --offline` takes every tarball from the npm cache.
// Needs dist/ built (npm run build) and bubblewrap (the bench runs the task's code in it). About 40 s here.

import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readmeText, shellBlocks, shellCommands, typescriptBlocks } from "../readme/readme-blocks.js";

/** The commands of the README's shell block that installs the package from the registry. */
function registryBlock(): string[] {
  const block = shellBlocks(readmeText()).find((b) => b.code.trimStart().startsWith("npm install "));
  if (!block) throw new Error("README.md has no shell block that starts with npm install");
  return shellCommands(`\`\`\`sh\n${block.code}\n\`\`\`\n`).map((c) => c.command);
}

const repo = fileURLToPath(new URL("../..", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "qtc-18-install-"));
const app = join(root, "app");
const NAME = "qwen-tool-calls";
const installed = join(app, "node_modules", NAME);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  const clean = { ...process.env };
  // The suite's own models folder must not leak into the app (test/helpers/models.ts sets it).
  delete clean.QTC_MODELS_DIR;
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...clean, ...env }, timeout: 150_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The app's lockfile: qwen-tool-calls from the tarball, its dependencies at the repo lock's versions (no dev ones). */
function appLock(tarball: string, spec: string): object {
  const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8"));
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  const packages: Record<string, object> = {
    "": { name: "app", version: "1.0.0", dependencies: { [NAME]: spec } },
    [`node_modules/${NAME}`]: {
      version: manifest.version,
      resolved: spec,
      integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages as Record<string, Record<string, unknown>>)) {
    if (key === "" || entry.dev === true) continue;
    const { devOptional, ...rest } = entry;
    packages[key] = devOptional ? { ...rest, optional: true } : rest;
  }
  return { name: "app", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

/** Every file under `dir` with its size and modification time, to see that nothing was written there. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const s = statSync(path);
    out.push(`${path} ${s.isDirectory() ? "dir" : s.size} ${s.mtimeMs}`);
  }
  return out.sort();
}

let tarball: string;
beforeAll(() => {
  const packed = sh("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", root], repo);
  tarball = join(root, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  mkdirSync(app);
  const spec = `file:../${tarball.slice(root.length + 1)}`;
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true, dependencies: { [NAME]: spec } }));
  writeFileSync(join(app, "package-lock.json"), JSON.stringify(appLock(tarball, spec)));
  sh("npm", ["ci", "--offline", "--no-audit", "--no-fund"], app);
}, 180_000);

it("the package is named qwen-tool-calls (npm's `qtc` is another package) and installs the qtc command", () => {
  expect(JSON.parse(readFileSync(join(repo, "package.json"), "utf8"))).toMatchObject({ name: NAME, bin: { qtc: "bin/qtc.js" } });
  expect(existsSync(join(app, "node_modules", ".bin", "qtc"))).toBe(true);
});

it("the README's install-from-the-registry lines work as written with the packed package installed", { timeout: 120_000 }, () => {
  // The tarball's install stands in for `npm install qwen-tool-calls` (not published from here); the block's npx lines
  // (`npx qtc --help`, `npx -p qwen-tool-calls qtc --help`) run as written. npm runs offline,
  // so an npx line that would fetch anything fails instead of reaching the registry (where `qtc` is someone else's).
  const block = registryBlock();
  expect(block[0]).toBe(`npm install ${NAME}`);
  const npxLines = block.filter((c) => c.startsWith("npx "));
  expect(npxLines.length).toBeGreaterThanOrEqual(2);
  for (const line of npxLines) {
    const [cmd, ...args] = line.split(" ");
    const r = sh(cmd!, args, app, { npm_config_offline: "true" });
    expect(r.stdout, line).toContain("Usage: qtc");
  }
});

it("the tarball ships the bench tasks and the MIT LICENSE", () => {
  expect(readFileSync(join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the qtc authors\n/);
  expect(readdirSync(join(installed, "bench", "tasks")).length).toBeGreaterThanOrEqual(40);
  expect(existsSync(join(installed, "bench", "tasks", "is-leap-year", "task.json"))).toBe(true);
});

it("npx qtc bench --constrained runs from the app, writes its report, and writes nothing inside the package", { timeout: 120_000 }, () => {
  const before = snapshot(installed);
  const models = join(root, "models");
  const out = join(root, "bench-out");
  // One turn of 32 tokens keeps it to seconds; the flags the issue names are all there.
  const args = ["--no-install", "qtc", "bench", "--constrained", "--model", "synthetic:tiny", "--tasks", "1", "--seeds", "1", "--out", out];
  sh("npx", [...args, "--no-baseline", "--max-turns", "1", "--max-tokens", "32"], app, { QTC_MODELS_DIR: models });
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { config: { runsDone: number; partial: boolean } };
  expect(report.config).toMatchObject({ runsDone: 1, partial: false });
  expect(existsSync(join(out, "report.md"))).toBe(true);
  expect(readdirSync(models)).toContain("synthetic-tiny-q8_0.gguf");
  expect(snapshot(installed)).toEqual(before);
});

it("without QTC_MODELS_DIR a model goes to $XDG_CACHE_HOME/qtc/models, not into the package", { timeout: 60_000 }, () => {
  const cache = join(root, "xdg-cache");
  sh("npx", ["--no-install", "qtc", "make-model", "--shape", "tiny"], app, { XDG_CACHE_HOME: cache });
  expect(readdirSync(join(cache, "qtc", "models"))).toContain("synthetic-tiny-q8_0.gguf");
  expect(existsSync(join(installed, "models"))).toBe(false);
});

it("the README's library example runs from the app", { timeout: 120_000 }, () => {
  const example = typescriptBlocks(readmeText()).find((b) => b.code.includes(`from "${NAME}"`) && b.code.includes("createRuntime"));
  expect(example, "README.md has a library example that imports createRuntime from qwen-tool-calls").toBeDefined();
  // Node 20 runs JavaScript: strip the types the way tsc would, nothing else.
  const js = ts.transpileModule(example!.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  writeFileSync(join(app, "readme-example.mjs"), js);
  const r = sh(process.execPath, ["readme-example.mjs"], app, { QTC_MODELS_DIR: join(root, "models") });
  // The example asks for a read_file call under tool choice required; it prints the calls, then the OpenAI message.
  expect(r.stdout).toContain("name: 'read_file'");
  expect(r.stdout).toContain("tool_calls");
});
