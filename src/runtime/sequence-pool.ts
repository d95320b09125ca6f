// Owns: handing out a context's sequences to requests, one per request, each to the free sequence that suits it
// best (the longest shared prompt prefix); requests beyond the count wait in order.

/** How well a free item suits a borrower (higher is better), e.g. the prompt tokens a sequence already holds. */
export type Affinity<T> = (item: T) => number;

/**
 * A fixed set of items lent out one per borrower; borrowers beyond the count queue FIFO. A borrower with an
 * affinity gets the free item it scores highest; ties go to the item free the longest.
 */
export class SequencePool<T> {
  private readonly free: T[];
  private readonly waiters: Array<{ resolve: (item: T) => void; reject: (e: unknown) => void; signal?: AbortSignal; onAbort?: () => void }> = [];
  private closed = false;

  constructor(items: readonly T[]) {
    this.free = [...items];
  }

  /** Items not lent out right now. */
  get available(): number {
    return this.free.length;
  }

  /** Requests waiting for an item. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Borrow an item: the free one `affinity` scores highest, else the one free the longest; waits when none is
   * free (a waiter takes whichever item comes back first). Rejects with the signal's reason when aborted while
   * waiting.
   */
  acquire(signal?: AbortSignal, affinity?: Affinity<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the runtime is closed"));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    if (this.free.length > 0) return Promise.resolve(this.free.splice(this.bestFree(affinity), 1)[0]!);
    return new Promise<T>((resolve, reject) => {
      const waiter: (typeof this.waiters)[number] = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason ?? new Error("aborted"));
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  /** Index of the free item with the highest affinity; the first (free the longest) among equals. */
  private bestFree(affinity: Affinity<T> | undefined): number {
    if (!affinity) return 0;
    let best = 0;
    let bestScore = -Infinity;
    for (let i = 0; i < this.free.length; i++) {
      const score = affinity(this.free[i]!);
      if (score > bestScore) [best, bestScore] = [i, score];
    }
    return best;
  }

  /** Give an item back; the oldest waiter gets it. */
  release(item: T): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(item);
      return;
    }
    this.free.push(item);
  }

  /** Reject every waiter; later acquires fail. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.reject(new Error("the runtime is closed"));
    }
  }
}
