// Owns: the line between the package and the project's own benches: a bench script (bench/*.ts) imports the
// public API (../dist/index.js) or bench/lib/; bench/lib/ is the one place that reaches into dist/**; src/ never
// imports bench/, and the package ships no bench code (only bench/tasks, which `qtc bench` runs).

import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/source-graph.js";

const read = (file: string) => readFileSync(join(REPO_ROOT, file), "utf8");
const tsIn = (dir: string, recursive = false): string[] =>
  readdirSync(join(REPO_ROOT, dir), { recursive, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => posix.join(posix.relative(REPO_ROOT, e.parentPath).split("\\").join("/"), e.name))
    .sort();

/** Relative module specifiers a file names (imports, re-exports, `import()` calls and `import("x").T` types). */
function relativeSpecifiers(file: string): string[] {
  const text = read(file);
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm)) out.push(m[1]!);
  return out;
}

const scripts = tsIn("bench");
const lib = tsIn("bench/lib");

describe("bench/ imports", () => {
  it("sees the bench scripts and their imports (the check is not empty by accident)", () => {
    expect(scripts).toContain("bench/maskbench-main.ts");
    expect(lib).toContain("bench/lib/maskbench.ts");
    expect(relativeSpecifiers("bench/maskbench-main.ts")).toContain("./lib/maskbench.js");
    expect(relativeSpecifiers("bench/lib/internals.ts").some((s) => s.startsWith("../../dist/"))).toBe(true);
  });

  it("a bench script imports only the public API (../dist/index.js) or bench/lib/", () => {
    const offenders = scripts.flatMap((file) => relativeSpecifiers(file).filter((s) => s !== "../dist/index.js" && !s.startsWith("./lib/")).map((s) => `${file} → ${s}`));
    expect(offenders).toEqual([]);
  });

  it("bench/lib/ imports its own files or the built library, never a bench script", () => {
    const offenders = lib.flatMap((file) =>
      relativeSpecifiers(file)
        .filter((s) => !(s.startsWith("./") && !s.slice(2).includes("/")) && !s.startsWith("../../dist/"))
        .map((s) => `${file} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("src/ never imports from bench/ (the package cannot depend on what it does not ship)", () => {
    const offenders = tsIn("src", true).flatMap((file) =>
      relativeSpecifiers(file)
        .filter((s) => !posix.normalize(posix.join(posix.dirname(file), s)).startsWith("src/"))
        .map((s) => `${file} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });
});

describe("what the package ships", () => {
  it("ships bench/tasks (qtc bench runs them) and no bench code", () => {
    const files = (JSON.parse(read("package.json")) as { files: string[] }).files;
    expect(files).toContain("bench/tasks");
    expect(files.filter((f) => f === "bench" || (f.startsWith("bench/") && f !== "bench/tasks"))).toEqual([]);
  });

  it("keeps the project's own benchmarks and fuzzers out of src/bench/ (llama.cpp's grammar evaluator is a bench row only)", () => {
    const own = /maskbench|fuzz|grammar-token-cost|grammar-xgrammar|e2e-|script-args|model-fixes/;
    expect(tsIn("src/bench").filter((f) => own.test(f))).toEqual([]);
    expect(tsIn("src/bench").filter((f) => /LlamaGrammarEvaluationState|\bLlamaGrammar\b/.test(read(f)))).toEqual([]);
    expect(read("bench/lib/grammar-token-cost.ts")).toContain("LlamaGrammarEvaluationState");
  });
});
