// Owns: runs of integers kept in one growing typed array and addressed by offset, for the per-state tables of the
// qtc engine: a small typed array per state cost about a microsecond to make (past 64 bytes V8 keeps its contents
// outside the heap), and there are thousands of new states in a bounded string's first masks.

export class IntArena {
  /** The runs; replaced (contents copied) when it grows, so read it again after an `alloc`. */
  data: Int32Array = new Int32Array(4096);
  used = 0;

  /** Room for `n` integers: the offset of the run. */
  alloc(n: number): number {
    if (this.used + n > this.data.length) this.data = grownTo(this.data, this.used + n);
    const at = this.used;
    this.used += n;
    return at;
  }
}

/** `a`'s contents in an array of at least `least` elements (twice as long at least). */
export function grownTo(a: Int32Array, least: number): Int32Array {
  const b = new Int32Array(Math.max(least, a.length * 2));
  b.set(a);
  return b;
}
