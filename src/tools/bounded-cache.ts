// Owns: BoundedCache, the one least-recently-used map every qtc cache is built on (the owner picks the size).

import { internal } from "../errors.js";

/** A Map that keeps at most `capacity` entries, dropping the least recently used one. */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) internal(`a cache needs a capacity ≥ 1, got ${capacity}`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value under `key`, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
  }
}
