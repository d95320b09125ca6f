// Owns: the order of src/'s stages as the compiler resolves their imports: every import between two stages runs
// downhill (from a later stage to an earlier one), and the constraint engine is fed plain data only.

import { describe, expect, it } from "vitest";
import { importGraph, parseSources, type ImportEdge } from "../helpers/source-graph.js";

/**
 * Each stage's depth: a file may import only stages of a smaller depth (or its own). Stages of one depth are
 * siblings and never import each other. The order is STYLE.md's: formats → grammar/parse → engine → model/adapters →
 * runtime → engines → harness/bench/server/cli, with the foundations every stage shares above them.
 */
const DEPTH: Record<string, number> = {
  errors: 0,
  defaults: 0,
  random: 0,
  formats: 1,
  tools: 1,
  prompt: 2,
  parse: 2,
  grammar: 2,
  engine: 3,
  // The one reader of a vocabulary out of node-llama-cpp: it hands the engine plain data in the engine's types.
  model: 4,
  adapters: 4,
  runtime: 5,
  engines: 6,
  harness: 7,
  training: 8,
  bench: 9,
  server: 9,
  cli: 10,
  index: 11,
};

const files = parseSources("src");
const edges = importGraph(files);
const stageOf = (path: string): string => path.split("/")[1]!.replace(/\.ts$/, "");
const show = (e: ImportEdge) => `${e.from}:${e.line} → ${e.to}`;
/** Edges from one stage to a stage of the same or a greater depth. */
const upward = (list: readonly ImportEdge[]) =>
  list.filter((e) => stageOf(e.from) !== stageOf(e.to) && DEPTH[stageOf(e.to)]! >= DEPTH[stageOf(e.from)]!);

describe("src/ stages", () => {
  it("names every stage folder it checks (a new stage gets a depth here)", () => {
    const unknown = [...new Set([...files.keys()].map(stageOf))].filter((s) => DEPTH[s] === undefined);
    expect(unknown).toEqual([]);
  });

  it("imports only run downhill: no stage imports a later stage or a sibling", () => {
    expect(upward(edges).map(show)).toEqual([]);
  });

  it("the engine is fed plain data: it imports no model reader, runtime or node-llama-cpp", () => {
    const engineFiles = [...files.keys()].filter((f) => f.startsWith("src/engine/"));
    const reachesUp = edges.filter((e) => e.from.startsWith("src/engine/") && !["errors", "defaults", "formats", "grammar", "engine"].includes(stageOf(e.to)));
    expect(reachesUp.map(show)).toEqual([]);
    const native = engineFiles.filter((f) => files.get(f)!.statements.some((s) => "moduleSpecifier" in s && /node-llama-cpp/.test(String((s as { moduleSpecifier?: { text?: string } }).moduleSpecifier?.text))));
    expect(native).toEqual([]);
  });

  it("no file in src/ drives llama.cpp's grammar evaluator: qtc's engine is the one that constrains and judges", () => {
    const evaluator = /\b(LlamaGrammar|LlamaGrammarEvaluationState|createGrammar|canBeNextTokenForGrammarEvaluationState|acceptGrammarEvaluationStateToken)\b/;
    const driving = [...files.entries()].filter(([, file]) => evaluator.test(file.text)).map(([path]) => path);
    expect(driving).toEqual([]);
    expect(evaluator.test("new LlamaGrammarEvaluationState({ model, grammar })")).toBe(true);
  });

  it("catches an upward or sideways import, and lets downhill and in-stage ones pass", () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to, line: 1, typeOnly: true });
    const cases = [edge("src/grammar/x.ts", "src/runtime/y.ts"), edge("src/parse/x.ts", "src/grammar/y.ts"), edge("src/runtime/x.ts", "src/engine/y.ts"), edge("src/engine/x.ts", "src/engine/y.ts"), edge("src/index.ts", "src/cli/y.ts")];
    expect(upward(cases).map(show)).toEqual(["src/grammar/x.ts:1 → src/runtime/y.ts", "src/parse/x.ts:1 → src/grammar/y.ts"]);
    expect(edges.length).toBeGreaterThan(500);
  });
});
