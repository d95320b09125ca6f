// Owns: handing out a context's sequences to requests, one per request; requests beyond the count wait in order.

/** A fixed set of items lent out one per borrower; borrowers beyond the count queue FIFO. */
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

  /** Borrow an item; waits when none is free. Rejects with the signal's reason when aborted while waiting. */
  acquire(signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the runtime is closed"));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    const item = this.free.shift();
    if (item !== undefined) return Promise.resolve(item);
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
