// Owns: the layering of src/ as the TypeScript compiler resolves its imports: no import circle between files,
// the runtime never importing the engines that choose it, the model stage never importing training, the
// constraint engine (src/engine/) importing neither the runtime, node-llama-cpp nor the stages above it.

import { describe, expect, it } from "vitest";
import { importCircles, importGraph, packageImports, parseSources, type ImportEdge } from "../helpers/source-graph.js";

const files = parseSources("src");
const edges = importGraph(files);
const show = (e: ImportEdge) => `${e.from}:${e.line} → ${e.to}`;
const crossing = (from: string, to: string) => edges.filter((e) => e.from.startsWith(from) && e.to.startsWith(to)).map(show);
const packages = packageImports(files);
const llamaImports = (from: string) =>
  packages.filter((p) => p.from.startsWith(from) && (p.specifier === "node-llama-cpp" || p.specifier.startsWith("node-llama-cpp/"))).map((p) => `${p.from}:${p.line} → ${p.specifier}`);

/** Every file `start`'s files reach through imports (type-only ones too), theirs included. */
function reachable(start: string): Set<string> {
  const seen = new Set([...files.keys()].filter((f) => f.startsWith(start)));
  const queue = [...seen];
  while (queue.length > 0) {
    const at = queue.pop()!;
    for (const e of edges) if (e.from === at && !seen.has(e.to)) (seen.add(e.to), queue.push(e.to));
  }
  return seen;
}

describe("src/ imports", () => {
  it("resolves the imports it checks (the graph is not empty by accident)", () => {
    expect(files.size).toBeGreaterThan(100);
    // A known edge, resolved from `./x.js` to `x.ts` the way tsc does under NodeNext.
    expect(edges.map((e) => `${e.from} → ${e.to}`)).toContain("src/parse/parser.ts → src/parse/scanner.ts");
    // Type-only imports and on-demand import() calls are edges too.
    expect(edges.some((e) => e.typeOnly)).toBe(true);
    expect(edges.some((e) => e.dynamic)).toBe(true);
  });

  it("has no import circle between files (type-only imports and re-exports count)", () => {
    expect(importCircles(files.keys(), edges)).toEqual([]);
  });

  it("runtime never imports from engines (engines choose and build runtimes; the local runtime is one)", () => {
    expect(crossing("src/runtime/", "src/engines/")).toEqual([]);
  });

  it("model never imports from training (training owns the trained stand-ins and passes them in)", () => {
    expect(crossing("src/model/", "src/training/")).toEqual([]);
  });

  it("the engine imports neither the runtime nor node-llama-cpp, not even a type (src/model/ feeds it plain data)", () => {
    // The checks see the engine and its package imports (not empty by accident).
    expect(edges.map((e) => `${e.from} → ${e.to}`)).toContain("src/engine/qtc-matcher.ts → src/engine/stack-pool.ts");
    expect(llamaImports("src/model/vocabulary.ts")).not.toEqual([]);
    expect(crossing("src/engine/", "src/runtime/")).toEqual([]);
    expect(llamaImports("src/engine/")).toEqual([]);
    // Nor through a file it imports.
    const reached = [...reachable("src/engine/")];
    expect(reached.filter((f) => f.startsWith("src/runtime/"))).toEqual([]);
    expect(reached.flatMap((f) => llamaImports(f))).toEqual([]);
  });

  it("the engine never imports the stages that use it (engines, server, cli)", () => {
    for (const above of ["src/engines/", "src/server/", "src/cli/"]) expect(crossing("src/engine/", above)).toEqual([]);
  });
});

describe("the graph checker", () => {
  it("finds a circle (and only a circle)", () => {
    const nodes = ["a.ts", "b.ts", "c.ts", "d.ts"];
    const edge = (from: string, to: string): ImportEdge => ({ from, to, line: 1, typeOnly: false });
    expect(importCircles(nodes, [edge("a.ts", "b.ts"), edge("b.ts", "c.ts"), edge("c.ts", "a.ts"), edge("c.ts", "d.ts")])).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(importCircles(nodes, [edge("a.ts", "b.ts"), edge("b.ts", "c.ts")])).toEqual([]);
    expect(importCircles(nodes, [edge("d.ts", "d.ts")])).toEqual([["d.ts"]]);
  });
});
