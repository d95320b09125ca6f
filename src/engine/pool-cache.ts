// Owns: the engine's cache of compiled grammars (program and stack pool per GBNF text), least recently used first,
// bounded by the bytes its pools hold (StackPool.bytes, which grows as a pool serves) rather than by a count: one
// grammar's states can weigh as much as a thousand small grammars.

import { compileGbnf, type Program } from "./gbnf-program.js";
import { StackPool } from "./stack-pool.js";

export const ENGINE_GRAMMAR_CACHE = Object.freeze({
  /**
   * Estimated bytes (each pool's StackPool.bytes plus its GBNF text) the cached grammars may hold together; the
   * least recently used are dropped first, never the one just asked for. Default: 256 MiB.
   */
  bytes: 256 * 1024 * 1024,
  /** Most grammars kept whatever they weigh. Default: 64. */
  entries: 64,
});

export interface PoolCacheReport {
  /** Each cached grammar's estimated bytes, least recently used first. */
  entries: number[];
  /** Their sum. */
  bytes: number;
  budget: number;
}

export class PoolCache {
  private readonly grammars = new Map<string, { program: Program; pool: StackPool }>();

  /** `limits`: the cache's bounds. Default: ENGINE_GRAMMAR_CACHE. */
  constructor(private readonly limits: { readonly bytes: number; readonly entries: number } = ENGINE_GRAMMAR_CACHE) {}

  /**
   * The pool of `gbnf`'s compiled program (compiled on first use). A full pool is replaced for new matchers (the
   * ones holding it keep it). Throws GbnfError / EngineLimitError on a grammar the engine refuses.
   */
  poolFor(gbnf: string): StackPool {
    let entry = this.grammars.get(gbnf);
    if (entry) {
      this.grammars.delete(gbnf);
      if (entry.pool.full) entry = { program: entry.program, pool: new StackPool(entry.program) };
    } else {
      const program = compileGbnf(gbnf);
      entry = { program, pool: new StackPool(program) };
    }
    this.grammars.set(gbnf, entry);
    this.evict();
    return entry.pool;
  }

  report(): PoolCacheReport {
    const entries = [...this.grammars].map(([gbnf, e]) => e.pool.bytes + gbnf.length);
    return { entries, bytes: entries.reduce((a, b) => a + b, 0), budget: this.limits.bytes };
  }

  /**
   * Drop the least recently used grammars until the rest fit the byte budget and the entry bound; the most recent
   * stays whatever it weighs (its turn holds it anyway). Pools grow while they serve, so this runs on every lookup,
   * over at most `entries` grammars.
   */
  private evict(): void {
    let total = 0;
    for (const [gbnf, e] of this.grammars) total += e.pool.bytes + gbnf.length;
    for (const [gbnf, e] of this.grammars) {
      if (this.grammars.size <= 1 || (total <= this.limits.bytes && this.grammars.size <= this.limits.entries)) break;
      this.grammars.delete(gbnf);
      total -= e.pool.bytes + gbnf.length;
    }
  }
}
