// What the tokenCost rows cover: the tool lists with the maxLength string before the generated ones (its
// xgrammar grammar holds the bound, which qtc's xgrammar dialect leaves to the validator), and the MaskBench
// sample read the way bench:maskbench reads it (every k-th file of the sorted list).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { boundedStringEbnf, costLists, maxLengthTools, readMaskbenchSample, warmUpLists } from "../../bench/lib/grammar-token-cost-suites.js";
import { generatedTools } from "../../bench/lib/tool-lists.js";
import { compileXgrammar } from "../../src/grammar/xgrammar.js";

const tool = (name: string) => ({ name, parameters: { type: "object", properties: {} } });

test("the tool lists: 5 harness, Claude Code's, the maxLength string, the uniqueItems tools, then 100 and 200 generated", () => {
  const lists = costLists([tool("a")], [["Codex CLI (1 tools)", [tool("b")]], ["Claude Code (24 tools)", [tool("c")]]], (n) => Array.from({ length: n }, (_, i) => tool(`g${i}`)));
  expect(lists.map((l) => l.label)).toEqual(["5 harness", "Claude Code (24 tools)", "maxLength 64 string", "uniqueItems 3 tools", "100 generated", "200 generated"]);
  expect(lists.map((l) => l.xgMaxLength)).toEqual([undefined, undefined, 64, undefined, undefined, undefined]);
  // The uniqueItems list compiles for qtc (the guard holds it) and leaves it to the validator in xgrammar's dialect.
  const unique = lists[3]!.tools;
  expect(unique.map((t) => t.name)).toEqual(["pick_digits", "tag", "flags"]);
  const xg = compileXgrammar(unique, { format: "hermes", toolChoice: "required", maxTokens: 256 });
  // (one entry: the three tools' arrays share the pointer, and the dialect lists each pointer once)
  expect(xg.ok && xg.value.leftToValidator.filter((l) => l.keyword === "uniqueItems")).toEqual([{ keyword: "uniqueItems", path: "/properties/xs" }]);
});

test("the warm-up lists share no tool with the rows' lists, and take their paths: clients, generated, maxLength, uniqueItems", () => {
  const clients: [string, ReturnType<typeof tool>[]][] = [["Codex CLI (1 tools)", [tool("b")]], ["Claude Code (24 tools)", [tool("c")]]];
  const rows = costLists([tool("a")], clients, generatedTools);
  const warm = warmUpLists(clients, generatedTools);
  expect(warm.map((l) => l.label)).toEqual(["warm-up: Codex CLI (1 tools)", "warm-up: 60 generated", "warm-up: maxLength 48 string", "warm-up: uniqueItems 3 tools"]);
  // A row's grammar must be cold: no warm-up tool is one of a row's tools.
  const inRows = new Set(rows.flatMap((l) => l.tools.map((t) => JSON.stringify(t))));
  for (const t of warm.flatMap((l) => l.tools)) expect(inRows.has(JSON.stringify(t))).toBe(false);
  const params = (i: number) => JSON.stringify(warm[i]!.tools.map((t) => t.parameters));
  expect(warm[1]!.tools).toHaveLength(60);
  expect(params(2)).toContain('"maxLength":48');
  expect(params(3)).toContain('"uniqueItems":true');
});

test("the maxLength row's xgrammar grammar bounds the string as xgrammar's own converter does; the dialect alone leaves it open", () => {
  const xg = compileXgrammar(maxLengthTools(64), { format: "hermes", toolChoice: "required", maxTokens: 256 });
  if (!xg.ok) throw new Error(xg.error.message);
  expect(xg.value.leftToValidator).toEqual([{ keyword: "maxLength", path: "/properties/text" }]);
  const bounded = boundedStringEbnf(xg.value.ebnf, 64);
  expect(bounded).toContain('"\\"" [^"\\\\\\x00-\\x1f]{0,64} "\\""');
  expect(bounded).not.toContain('"\\"" xg-string-rest');
  expect(() => boundedStringEbnf("root ::= \"x\"", 64)).toThrow(/one plain string/);
});

test("the MaskBench sample is every k-th schema file; one the compiler refuses is kept with its code", () => {
  const dir = mkdtempSync(join(tmpdir(), "qtc-token-cost-"));
  try {
    for (let i = 0; i < 10; i++) writeFileSync(join(dir, `s${i}.json`), JSON.stringify({ schema: i === 4 ? { type: "string", pattern: "(?<=a)b" } : { type: "integer", maximum: i } }));
    const sample = readMaskbenchSample(dir, 5);
    expect(sample.schemas.map((s) => s.file)).toEqual(["s0.json", "s2.json", "s4.json", "s6.json", "s8.json"]);
    expect(sample.label).toBe("maskbench 5 of 10");
    expect(sample.schemas[2]!.grammar).toBeUndefined();
    expect(sample.schemas[2]!.refused).toMatch(/\w+/);
    expect(sample.schemas[0]!.grammar?.matcher.gbnf).toContain("root");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
