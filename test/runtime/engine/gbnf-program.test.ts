// The qtc engine's GBNF reader: llama.cpp's dialect as qtc writes it (literals, classes, groups, repetitions,
// special tokens), and clear failures for what it refuses.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { classMatches, compileGbnf, EL, GbnfError, ruleCount } from "../../../src/engine/gbnf-program.js";
import { DEAD, EngineLimitError, StackPool } from "../../../src/engine/stack-pool.js";

/** Whether `gbnf` accepts `text` whole (special tokens as `\u0001<id>\u0001`). */
function accepts(gbnf: string, text: string): boolean {
  const pool = new StackPool(compileGbnf(gbnf));
  let at = pool.root;
  const parts = text.split("\u0001");
  parts.forEach((part, k) => {
    if (k % 2 === 1) at = pool.stepToken(at, Number(part));
    else for (const ch of part) at = pool.step(at, ch.codePointAt(0)!);
  });
  return at !== DEAD && pool.accepts(at);
}

describe("compileGbnf", () => {
  test("literals, escapes, classes (ranges, negation, any) and alternatives", () => {
    const g = 'root ::= "a\\n" [x-z0-9] | [^abc] "." | . "\\x41\\u00e9"\n';
    expect(accepts(g, "a\ny")).toBe(true);
    expect(accepts(g, "a\n5")).toBe(true);
    expect(accepts(g, "a\nw")).toBe(false);
    expect(accepts(g, "d.")).toBe(true);
    expect(accepts(g, "a.")).toBe(false);
    expect(accepts(g, "\u4e2dAé")).toBe(true);
  });

  test("groups and repetitions: * + ? {m} {m,} {m,n}", () => {
    expect(accepts('root ::= ("ab" | "c")* "!"\n', "abcab!")).toBe(true);
    expect(accepts('root ::= "x"+\n', "")).toBe(false);
    expect(accepts('root ::= "x"+\n', "xxx")).toBe(true);
    expect(accepts('root ::= "x"? "y"\n', "y")).toBe(true);
    const bounded = 'root ::= "x"{2,3}\n';
    expect(["x", "xx", "xxx", "xxxx"].map((t) => accepts(bounded, t))).toEqual([false, true, true, false]);
    expect(accepts('root ::= "x"{2}\n', "xx")).toBe(true);
    expect(accepts('root ::= "x"{2,}\n', "xxxxx")).toBe(true);
  });

  test("special tokens are their own elements, never characters", () => {
    const g = 'root ::= <[151657]> "\\n" name <[151658]>\nname ::= [a-z]+\n';
    const p = compileGbnf(g);
    expect(p.tokens).toEqual([151657, 151658]);
    expect(accepts(g, "\u0001151657\u0001\nabc\u0001151658\u0001")).toBe(true);
    expect(accepts(g, "<tool_call>\nabc</tool_call>")).toBe(false);
  });

  test("rules may continue on the next line after | and inside parentheses; comments are skipped", () => {
    const g = '# a comment\nroot ::= "a" |\n  "b" | (\n "c"\n | "d" )\n';
    expect(["a", "b", "c", "d", "e"].map((t) => accepts(g, t))).toEqual([true, true, true, true, false]);
  });

  test("equal classes are shared; a literal's characters are single-point classes", () => {
    const p = compileGbnf('root ::= "aa" [a]\n');
    const clsIds = [...p.code].filter((_, i) => i % 2 === 1 && p.code[i - 1] === EL.cls);
    expect(new Set(clsIds).size).toBe(1);
    expect(classMatches(p, clsIds[0]!, 0x61)).toBe(true);
  });

  test("a group or bounded repetition written many times is one set of rules, and each copy still counts its own bound", () => {
    // MaskBench's Github_hard---o13029 wrote a string's character group with {0,n} 2,851 times: one rule per copy
    // came to 390,000 rules, over PROGRAM_LIMITS.maxRules, so the schema was refused.
    const uses = Array.from({ length: 400 }, (_, i) => `f${i} ::= "<" ([a-c] | "\\\\" [nt]){0,${999 - (i % 3)}} ">"`).join("\n");
    const g = `root ::= f0 | f1 | f399\n${uses}\n`;
    const p = compileGbnf(g);
    expect(ruleCount(p)).toBeLessThan(1_500);
    expect(accepts(g, `<${"a\\n".repeat(300)}>`)).toBe(true);
    const bounded = 'root ::= "x" ("a"){0,2} "y" ("a"){0,3} "z" ("a"){0,1}\n';
    expect(["xyz", "xaayaaaza", "xaaayz", "xyaaaaz", "xyzaa"].map((t) => accepts(bounded, t))).toEqual([true, true, false, false, false]);
  });

  test("reads the harness grammars qtc ships and accepts a call of each format", () => {
    const dir = join(import.meta.dirname, "..", "..", "..", "grammars");
    const hermes = readFileSync(join(dir, "harness-hermes.gbnf"), "utf8");
    expect(accepts(hermes, '\u0001151657\u0001\n{"name": "grep", "arguments": {"pattern": "a<b", "path": "x"}}\n\u0001151658\u0001')).toBe(true);
    expect(accepts(hermes, '\u0001151657\u0001\n{"name": "grep", "arguments": {"path": "x"}}\n\u0001151658\u0001')).toBe(false);
    const coder = readFileSync(join(dir, "harness-qwen3coder.gbnf"), "utf8");
    expect(accepts(coder, "\u0001151657\u0001\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n\u0001151658\u0001")).toBe(true);
  });

  test("what it refuses fails with a GbnfError naming the problem", () => {
    expect(() => compileGbnf('root ::= "a\n')).toThrow(GbnfError);
    expect(() => compileGbnf('root ::= undefined-rule\n')).toThrow(/undefined-rule/);
    expect(() => compileGbnf('other ::= "a"\n')).toThrow(/root/);
    expect(() => compileGbnf('root ::= "a"{3,2}\n')).toThrow(GbnfError);
  });
});

describe("compileGbnf on deep nesting (issue 52 row 5)", () => {
  test("8,000 nested groups are read on an explicit stack, not the call stack", () => {
    const program = compileGbnf(`root ::= ${"(".repeat(8000)}"a" | "b"${")".repeat(8000)}\n`);
    expect(ruleCount(program)).toBeGreaterThan(1);
    expect(() => compileGbnf(`root ::= ${"(".repeat(8000)}"a"\n`)).toThrow(/expected \)/);
  });
});

describe("StackPool limits", () => {
  test("left recursion fails clearly instead of overflowing", () => {
    expect(() => new StackPool(compileGbnf('root ::= root "a" | "b"\n'))).toThrow(EngineLimitError);
  });

  test("a runaway ambiguity fails clearly (EngineLimitError) instead of growing without end", () => {
    // After n x's every mix of pending y's and z's is a parse: 2^n stacks.
    const pool = new StackPool(compileGbnf('root ::= a\na ::= "x" a "y" | "x" a "z" | ""\n'));
    let at = pool.root;
    expect(() => {
      for (let i = 0; i < 40; i++) at = pool.step(at, 0x78);
    }).toThrow(EngineLimitError);
  });

  test("a state repeats as the same id: steps and masks are cached per state", () => {
    const pool = new StackPool(compileGbnf('root ::= ("ab")*\n'));
    const a = pool.step(pool.step(pool.root, 0x61), 0x62);
    const b = pool.step(pool.step(a, 0x61), 0x62);
    expect(b).toBe(a);
  });
});
