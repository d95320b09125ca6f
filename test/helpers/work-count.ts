// Owns: counting work instead of timing it: how many characters of strings a synchronous call reads (every
// String.prototype.charCodeAt / codePointAt / charAt call while it runs), for tests that a matcher or a parser
// stays linear on hostile input. A count does not depend on how busy the machine is.

const METHODS = ["charCodeAt", "codePointAt", "charAt"] as const;

/** Run `fn` (synchronous) and count the string character reads it makes. */
export function countStringReads<T>(fn: () => T): { value: T; reads: number } {
  const proto = String.prototype as unknown as Record<(typeof METHODS)[number], (this: string, i: number) => unknown>;
  const originals = METHODS.map((m) => proto[m]);
  let reads = 0;
  METHODS.forEach((m, i) => {
    const original = originals[i]!;
    proto[m] = function (this: string, index: number) {
      reads++;
      return original.call(this, index);
    };
  });
  try {
    const value = fn();
    return { value, reads };
  } finally {
    METHODS.forEach((m, i) => (proto[m] = originals[i]!));
  }
}

/**
 * The reads of `run(n)` and `run(10·n)`: linear work reads about 10× as much for 10× the input; quadratic work
 * reads 100×, backtracking far more. A first uncounted run of the small size leaves out one-time work (compiling
 * a pattern, filling a cache); then each size runs once (the count is exact, there is nothing to average).
 */
export function readsAtTenfold(run: (n: number) => unknown, n: number): { small: number; large: number; ratio: number } {
  run(n);
  const small = countStringReads(() => run(n)).reads;
  const large = countStringReads(() => run(10 * n)).reads;
  return { small, large, ratio: large / small };
}
