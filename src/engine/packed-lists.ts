// Owns: many short lists of numbers (one per token) kept as one buffer plus offsets. One buffer, not one typed
// array per token: 150,000 small arrays were 30 MB of the heap (per vocabulary) that every collection marked.

type Buffer = Int32Array | Uint8Array;

export class PackedLists<B extends Buffer> {
  private constructor(
    /** List i is `data[from[i] .. from[i + 1])`. */
    private readonly data: B,
    private readonly from: Int32Array,
  ) {}

  /**
   * `count` lists, list i of `lengthOf(i)` numbers written by `write(i, data, at)` from `data[at]` on. `make` is the
   * buffer's constructor (`Int32Array` or `Uint8Array`).
   */
  static pack<B extends Buffer>(make: new (length: number) => B, count: number, lengthOf: (i: number) => number, write: (i: number, data: B, at: number) => void): PackedLists<B> {
    const from = new Int32Array(count + 1);
    for (let i = 0; i < count; i++) from[i + 1] = from[i]! + lengthOf(i);
    const data = new make(from[count]!);
    for (let i = 0; i < count; i++) if (from[i + 1]! > from[i]!) write(i, data, from[i]!);
    return new PackedLists(data, from);
  }

  /** List i, a view of the shared buffer (made per call); undefined when it is empty. */
  list(i: number): B | undefined {
    const start = this.from[i]!;
    const end = this.from[i + 1]!;
    return start === end ? undefined : (this.data.subarray(start, end) as B);
  }

  /** List i's length, without making a view. */
  lengthOf(i: number): number {
    return this.from[i + 1]! - this.from[i]!;
  }
}
