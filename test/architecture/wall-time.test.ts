// Owns: keeping wall-time assertions out of test/: no `expect(...)` whose subject reads a clock
// (performance.now(), Date.now(), process.hrtime). Speed belongs in `npm run bench:*`; tests count the work.

import ts from "typescript";
import { describe, expect, it } from "vitest";
import { parseSources } from "../helpers/source-graph.js";

const CLOCKS = new Set(["performance.now", "Date.now", "process.hrtime", "process.hrtime.bigint"]);

/** `expect(...)` calls whose first argument calls a clock, as `file:line`. */
function clockAssertions(files: Map<string, ts.SourceFile>): string[] {
  const out: string[] = [];
  for (const [path, file] of files) {
    const readsClock = (node: ts.Node): boolean =>
      (ts.isCallExpression(node) && CLOCKS.has(node.expression.getText(file))) || ts.forEachChild(node, readsClock) === true;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "expect" && node.arguments[0] && readsClock(node.arguments[0])) {
        out.push(`${path}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return out;
}

describe("wall time in test/", () => {
  it("no assertion reads a clock", () => {
    expect(clockAssertions(parseSources("test"))).toEqual([]);
  });

  it("the check finds one", () => {
    const source = "const t0 = performance.now();\nexpect(performance.now() - t0).toBeLessThan(500);\nexpect(Date.now()).toBeDefined();\nexpect(1).toBe(1);\n";
    const file = ts.createSourceFile("x.test.ts", source, ts.ScriptTarget.ES2022, true);
    expect(clockAssertions(new Map([["x.test.ts", file]]))).toEqual(["x.test.ts:2", "x.test.ts:3"]);
  });
});
