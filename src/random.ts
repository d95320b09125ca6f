// Owns: the one seeded pseudo-random generator qtc uses where results must repeat exactly (synthetic weights,
// bench corpora, test generators). Sampling randomness is llama.cpp's, not this.

/**
 * Mulberry32: a small, fast, deterministic 32-bit PRNG (period 2^32). Returns a function giving floats in [0, 1);
 * the same seed gives the same sequence on every platform.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
