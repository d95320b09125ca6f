// Owns: the size of src/'s functions: none over 150 lines, counted with the closures inside it (a reader holds a
// function whole, its inner functions included).

import ts from "typescript";
import { describe, expect, it } from "vitest";
import { functionSizes, parseSources } from "../helpers/source-graph.js";

const MAX_FUNCTION_LINES = 150;

describe("function size in src/", () => {
  it(`has no function over ${MAX_FUNCTION_LINES} lines, inner closures included`, () => {
    const big = functionSizes(parseSources("src")).filter((f) => f.lines > MAX_FUNCTION_LINES).map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(big).toEqual([]);
  });

  it("counts a function with its inner closures, methods and arrow functions too", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `    const v${i} = ${i};`).join("\n");
    const source = `export function outer() {\n  const inner = () => {\n${body(5)}\n  };\n${body(3)}\n}\nclass K {\n  m() {\n${body(2)}\n  }\n}\n`;
    const file = ts.createSourceFile("x.ts", source, ts.ScriptTarget.ES2022, true);
    const sizes = functionSizes(new Map([["x.ts", file]])).map((f) => [f.name, f.lines]);
    expect(sizes).toEqual([["outer", 12], ["inner", 7], ["m", 4]]);
  });
});
