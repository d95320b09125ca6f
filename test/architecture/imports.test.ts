// Owns: the layering of src/ as the TypeScript compiler resolves its imports: no import circle between files,
// the runtime never importing the engines that choose it, the model stage never importing training.

import { describe, expect, it } from "vitest";
import { importCircles, importGraph, parseSources, type ImportEdge } from "../helpers/source-graph.js";

const files = parseSources("src");
const edges = importGraph(files);
const show = (e: ImportEdge) => `${e.from}:${e.line} → ${e.to}`;
const crossing = (from: string, to: string) => edges.filter((e) => e.from.startsWith(from) && e.to.startsWith(to)).map(show);

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
