// Where the qtc engine keeps a step's data without allocating per step: the stamped sets a step fills and clears,
// the frame table (interned frames, the same id for the same frame however large it grows), and the arena of
// per-state runs (contents kept as it grows). And the pool built on them: a grammar whose states hold many
// stacks steps exactly as the text says.

import { describe, expect, test, vi } from "vitest";
import { FrameTable } from "../../../src/engine/frame-table.js";
import { compileGbnf } from "../../../src/engine/gbnf-program.js";
import { IntArena } from "../../../src/engine/int-arena.js";
import { StampedKeys, StampedSet } from "../../../src/engine/scratch-sets.js";
import { DEAD, StackPool } from "../../../src/engine/stack-pool.js";

describe("a step's storage", () => {
  test("a stamped set keeps its members in order, each once, and starts empty after a clear (past its first size too)", () => {
    const set = new StampedSet();
    const members = [5, 3000, 5, 7, 3000, 100_000];
    expect(members.map((x) => set.add(x))).toEqual([true, true, false, true, false, true]);
    expect(Array.from(set.items.subarray(0, set.size))).toEqual([5, 3000, 7, 100_000]);
    set.clear();
    expect(set.size).toBe(0);
    expect(set.add(7)).toBe(true);
    for (let x = 0; x < 5000; x++) set.add(x);
    expect(set.size).toBe(5000);
    expect(set.items[4999]).toBe(4999);
  });

  test("stamped keys tell a key seen from a new one, large keys and thousands of them included, and forget all on clear", () => {
    const keys = new StampedKeys();
    const big = (k: number) => (k + 1) * 2 ** 19 + (k % 977);
    for (let k = 0; k < 10_000; k++) expect(keys.add(big(k))).toBe(true);
    for (let k = 0; k < 10_000; k++) expect(keys.add(big(k))).toBe(false);
    keys.clear();
    expect(keys.add(big(42))).toBe(true);
    expect(keys.add(big(43))).toBe(true);
    expect(keys.add(big(42))).toBe(false);
  });

  test("the frame table gives one id per (position, frame below), the same before and after it grows", () => {
    const table = new FrameTable();
    const ids = new Map<string, number>();
    for (let below = -1; below < 300; below++) for (let pos = 0; pos < 40; pos += 2) ids.set(`${pos} ${below}`, table.intern(pos, below));
    expect(new Set(ids.values()).size).toBe(ids.size);
    for (const [key, id] of ids) {
      const [pos, below] = key.split(" ").map(Number) as [number, number];
      expect(table.intern(pos, below)).toBe(id);
      expect([table.pos[id], table.below[id]]).toEqual([pos, below]);
    }
    expect(table.size).toBe(ids.size);
  });

  test("the arena's runs keep their contents as it grows", () => {
    const arena = new IntArena();
    const runs: [number, number][] = [];
    for (let k = 0; k < 500; k++) {
      const at = arena.alloc(37);
      for (let i = 0; i < 37; i++) arena.data[at + i] = k * 100 + i;
      runs.push([at, k]);
    }
    for (const [at, k] of runs) expect(arena.data[at + 36]).toBe(k * 100 + 36);
  });

  test("a state of many stacks (an ambiguous grammar) steps as the grammar reads, again and again", () => {
    // Every a or b may start any of 60 rules: states of dozens of stacks, cut into intervals and stepped many times.
    const rules = Array.from({ length: 60 }, (_, k) => `r${k} ::= [a-${String.fromCharCode(0x62 + (k % 20))}] "x"{0,${k % 4}} | "b" r${(k + 1) % 60}?`);
    const gbnf = [`root ::= (${rules.map((_, k) => `r${k}`).join(" | ")})+`, ...rules].join("\n");
    const pool = new StackPool(compileGbnf(gbnf));
    const walk = (text: string) => [...text].reduce((at, ch) => pool.step(at, ch.codePointAt(0)!), pool.root);
    for (let round = 0; round < 3; round++) {
      expect(pool.accepts(walk("axx"))).toBe(true);
      expect(pool.accepts(walk("bbbba"))).toBe(true);
      expect(pool.accepts(walk("tx"))).toBe(true);
      expect(walk("xa")).toBe(DEAD);
      expect(pool.accepts(walk("axxxa"))).toBe(true);
      expect(walk("axxxx")).toBe(DEAD);
      expect(walk("v")).toBe(DEAD);
    }
  });

  test("intervals the same tops match share one step; an interval more tops match steps on its own", () => {
    // Around [m-p], [a-l] and [q-z] are matched by the first alternative's class alone: one advance serves both.
    const pool = new StackPool(compileGbnf('root ::= [a-z] "1" | [m-p] "2"'));
    const advance = vi.spyOn(pool as unknown as { advance: (...a: unknown[]) => number }, "advance");
    const [a, q, n] = ["a", "q", "n"].map((ch) => pool.step(pool.root, ch.codePointAt(0)!));
    expect(advance).toHaveBeenCalledTimes(2);
    expect(q).toBe(a);
    expect(n).not.toBe(a);
    const walk = (text: string) => [...text].reduce((at, ch) => pool.step(at, ch.codePointAt(0)!), pool.root);
    expect(pool.accepts(walk("q1"))).toBe(true);
    expect(walk("q2")).toBe(DEAD);
    expect(pool.accepts(walk("n2"))).toBe(true);
    expect(pool.accepts(walk("n1"))).toBe(true);
    expect(walk("A")).toBe(DEAD);
  });
});
