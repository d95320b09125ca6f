// Counted rule families (src/engine/count-shift.ts): found by name, trusted only where each member reads as the one
// below it, element by element, with each step down a count after a character; a position deep in one maps to the
// same element some counts lower.

import { expect, test } from "vitest";
import { compileToolGrammar } from "../../../src/grammar/index.js";
import { countedFamilies } from "../../../src/engine/count-shift.js";
import { alternativesOf, compileGbnf, EL, type Program } from "../../../src/engine/gbnf-program.js";
import { normalizeTools } from "../../../src/tools/index.js";

const rule = (p: Program, name: string) => p.ruleNames.indexOf(name);

/** `count` members of `name ::= "x" name<n-1> | ""` down to `name0 ::= ""`, as GBNF lines. */
function chain(name: string, count: number, body: (n: number) => string): string[] {
  return Array.from({ length: count + 1 }, (_, n) => `${name}${n} ::= ${n === 0 ? '""' : body(n)}`);
}

test("a bounded string's rules are counted families: each member read as the one below, the low ones by count too", () => {
  const tools = normalizeTools([{ name: "say", parameters: { type: "object", properties: { text: { type: "string", maxLength: 1200 } }, required: ["text"] } }]);
  const r = compileToolGrammar(tools, { format: "hermes", toolChoice: "required", maxTokens: 4096, parallel: false });
  if (!r.ok) throw new Error(r.error.message);
  const p = compileGbnf(r.value.gbnf);
  const f = countedFamilies(p, 132);
  if (!f) throw new Error("no counted families found");
  expect(f.countOf(rule(p, "jb1200"))).toBe(1200);
  expect(f.countOf(rule(p, "jbl1199"))).toBe(1199);
  expect(f.countOf(rule(p, "jb2"))).toBe(2);
  // Numbered rules that are not one count apart (the 1- to 4-byte characters, the exits of `<`) are not counted.
  expect(f.countOf(rule(p, "j2"))).toBe(-1);
  expect(f.countOf(rule(p, "jexit2"))).toBe(-1);
  expect(f.uniformFrom).toBeGreaterThan(0);
  expect(f.uniformFrom).toBeLessThan(16);
  expect(f.maxDrop).toBeGreaterThanOrEqual(4);
  expect(f.floor).toBe(f.uniformFrom + f.maxDrop * 134);
  // A string bounded below the floor: no state in it could shift, so its families are not looked for.
  const short = normalizeTools([{ name: "say", parameters: { type: "object", properties: { text: { type: "string", maxLength: 400 } }, required: ["text"] } }]);
  const s = compileToolGrammar(short, { format: "hermes", toolChoice: "required", maxTokens: 4096, parallel: false });
  if (!s.ok) throw new Error(s.error.message);
  expect(countedFamilies(compileGbnf(s.value.gbnf), 132)).toBeUndefined();
  // An element deep in jb300 is the same element 100 counts lower.
  const at = alternativesOf(p, rule(p, "jb300"))[5]!;
  const lower = f.shiftDown(at, 100);
  expect(f.ruleAt(lower)).toBe(rule(p, "jb200"));
  expect(lower - alternativesOf(p, rule(p, "jb200"))[5]!).toBe(0);
  expect([p.code[lower], p.code[lower + 1]]).toEqual([p.code[at], p.code[at + 1]]);
  expect(p.code[at]).toBe(EL.cls);
});

test("names that end in a number are not trusted: members that read otherwise are no family", () => {
  const gbnf = ['root ::= item9', ...chain("item", 9, (n) => `"${"xyz"[n % 3]}" item${n - 1} | ""`)].join("\n");
  expect(countedFamilies(compileGbnf(gbnf), 4)).toBeUndefined();
  // The same shape, each member one count apart: counted.
  const alike = ['root ::= item9', ...chain("item", 9, (n) => `"x" item${n - 1} | ""`)].join("\n");
  const f = countedFamilies(compileGbnf(alike), 4);
  expect(f?.countOf(rule(compileGbnf(alike), "item9"))).toBe(9);
  // Families too short for any state in them to sit a horizon above their bottom are not looked at.
  expect(countedFamilies(compileGbnf(alike), 8)).toBeUndefined();
});

test("a step down a count that reads nothing first is no family (a count could fall without a character)", () => {
  const gbnf = ['root ::= c9 "a"', ...chain("c", 9, (n) => `c${n - 1} "b" | ""`)].join("\n");
  expect(countedFamilies(compileGbnf(gbnf), 4)).toBeUndefined();
  // After an element that may be empty, still nothing is read first.
  const optional = ['root ::= c9', 'maybe ::= "m" | ""', ...chain("c", 9, (n) => `maybe c${n - 1} | ""`)].join("\n");
  expect(countedFamilies(compileGbnf(optional), 4)).toBeUndefined();
});

test("a family stepping into one that is not counted is not counted either", () => {
  const gbnf = [
    "root ::= a9",
    // a_n reads as a_(n-1), but leads into b_(n-1), whose members differ.
    ...chain("a", 9, (n) => `"x" b${n - 1} | ""`),
    ...chain("b", 9, (n) => `"${n % 2 === 0 ? "y" : "z"}" a${n - 1} | ""`),
  ].join("\n");
  expect(countedFamilies(compileGbnf(gbnf), 4)).toBeUndefined();
});
