// The slot pool: at most `size` at once, FIFO hand-over, aborted waiters leave, a full queue refuses.

import { describe, expect, test } from "vitest";
import { ApiError } from "../../src/server/api-error.js";
import { SlotPool } from "../../src/server/slots.js";

describe("SlotPool", () => {
  test("hands slots over in FIFO order and counts busy and queued", async () => {
    const pool = new SlotPool(2, 10);
    const r1 = await pool.acquire();
    const r2 = await pool.acquire();
    const order: number[] = [];
    const w3 = pool.acquire().then((r) => (order.push(3), r));
    const w4 = pool.acquire().then((r) => (order.push(4), r));
    expect(pool.stats()).toEqual({ total: 2, busy: 2, queued: 2 });
    r1();
    r1(); // idempotent: does not release twice
    const r3 = await w3;
    expect(pool.stats()).toEqual({ total: 2, busy: 2, queued: 1 });
    r2();
    const r4 = await w4;
    expect(order).toEqual([3, 4]);
    r3();
    r4();
    expect(pool.stats()).toEqual({ total: 2, busy: 0, queued: 0 });
  });

  test("an aborted waiter leaves the queue with the signal's reason", async () => {
    const pool = new SlotPool(1, 10);
    const release = await pool.acquire();
    const controller = new AbortController();
    const waiting = pool.acquire(controller.signal);
    expect(pool.stats().queued).toBe(1);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(pool.stats()).toEqual({ total: 1, busy: 1, queued: 0 });
    release();
    expect(pool.stats().busy).toBe(0);
  });

  test("a full queue refuses with a 503 overloaded ApiError; rejectWaiting empties it", async () => {
    const pool = new SlotPool(1, 1);
    await pool.acquire();
    const waiting = pool.acquire();
    const refused = await pool.acquire().catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect([refused.status, refused.code]).toEqual([503, "overloaded"]);
    pool.rejectWaiting(new Error("closing"));
    await expect(waiting).rejects.toThrow("closing");
    expect(pool.stats().queued).toBe(0);
  });
});
