// Owns: the generation slots: at most `size` requests run at once, the rest wait in FIFO order; an aborted
// waiter leaves the queue, and a released slot goes to the next waiter.

import { ApiError } from "./api-error.js";

export interface SlotStats {
  /** Slots in total (the server's `parallel`). */
  total: number;
  busy: number;
  queued: number;
}

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class SlotPool {
  readonly #size: number;
  readonly #queueLimit: number;
  #busy = 0;
  readonly #queue: Waiter[] = [];

  constructor(size: number, queueLimit: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`parallel must be a whole number ≥ 1, got ${size}`);
    this.#size = size;
    this.#queueLimit = queueLimit;
  }

  stats(): SlotStats {
    return { total: this.#size, busy: this.#busy, queued: this.#queue.length };
  }

  /**
   * Wait for a slot; resolves to its release function (idempotent). Rejects with the signal's reason when
   * aborted while waiting, and with a 503 "overloaded" ApiError when the queue is full.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#busy < this.#size) {
      this.#busy++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queue.length >= this.#queueLimit) {
      return Promise.reject(
        new ApiError(503, "overloaded", `The server is busy (${this.#queue.length} requests waiting). Retry later.`),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.#queue.indexOf(waiter);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.#queue.push(waiter);
    });
  }

  /** Reject every waiter (server shutting down). */
  rejectWaiting(reason: unknown): void {
    for (const waiter of this.#queue.splice(0)) {
      if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.reject(reason);
    }
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next) {
        if (next.onAbort) next.signal?.removeEventListener("abort", next.onAbort);
        next.resolve(this.#releaser()); // the slot passes on; #busy is unchanged
      } else {
        this.#busy--;
      }
    };
  }
}
