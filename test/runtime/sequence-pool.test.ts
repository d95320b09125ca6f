// SequencePool: one item per borrower, FIFO waiting, abort while waiting, close.

import { describe, expect, test } from "vitest";
import { SequencePool } from "../../src/runtime/sequence-pool.js";

describe("SequencePool", () => {
  test("lends each item once and hands returned items to waiters in order", async () => {
    const pool = new SequencePool(["a", "b"]);
    expect([await pool.acquire(), await pool.acquire()]).toEqual(["a", "b"]);
    const order: string[] = [];
    const w1 = pool.acquire().then((x) => order.push(`1:${x}`));
    const w2 = pool.acquire().then((x) => order.push(`2:${x}`));
    expect(pool.waiting).toBe(2);
    pool.release("b");
    pool.release("a");
    await Promise.all([w1, w2]);
    expect(order).toEqual(["1:b", "2:a"]);
    expect(pool.available).toBe(0);
  });

  test("an abort while waiting rejects that waiter only and leaves the queue", async () => {
    const pool = new SequencePool(["a"]);
    await pool.acquire();
    const ac = new AbortController();
    const aborted = pool.acquire(ac.signal);
    const next = pool.acquire();
    ac.abort(new Error("stop"));
    await expect(aborted).rejects.toThrow("stop");
    expect(pool.waiting).toBe(1);
    pool.release("a");
    expect(await next).toBe("a");
    const pre = new AbortController();
    pre.abort(new Error("early"));
    await expect(pool.acquire(pre.signal)).rejects.toThrow("early");
  });

  test("close rejects waiters and later acquires", async () => {
    const pool = new SequencePool(["a"]);
    await pool.acquire();
    const waiting = pool.acquire();
    pool.close();
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(pool.acquire()).rejects.toThrow(/closed/);
  });
});

describe("SequencePool affinity", () => {
  test("lends the free item the borrower scores highest, the one free the longest among equals", async () => {
    const pool = new SequencePool(["a", "b", "c"]);
    const score: Record<string, number> = { a: 1, b: 5, c: 5 };
    expect(await pool.acquire(undefined, (x) => score[x]!)).toBe("b");
    pool.release("b"); // free order now a, c, b: c has been free longer than b
    expect(await pool.acquire(undefined, (x) => score[x]!)).toBe("c");
    expect(await pool.acquire(undefined, () => 0)).toBe("a");
    expect(await pool.acquire(undefined, (x) => score[x]!)).toBe("b");
    expect(pool.available).toBe(0);
  });
});
