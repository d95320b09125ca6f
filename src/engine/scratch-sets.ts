// Owns: the sets one step of the qtc engine fills and drops (the frames a step reaches, the rule expansions it made),
// kept and cleared instead of made anew: a step made two Sets and grew them, and their garbage was most of what the
// young generation collected while a bounded string was masked (a scavenge of about 9 ms every few dozen tokens).

import { grownTo } from "./int-arena.js";

/** The generation after `generation`; where it would overflow, `stamps` are cleared and it starts again at 1. */
function nextGeneration(generation: number, stamps: Int32Array | Uint32Array): number {
  if (generation + 1 < 0x7fffffff) return generation + 1;
  stamps.fill(0);
  return 1;
}

/** Non-negative integers, cleared by a generation stamp; its members in the order added. */
export class StampedSet {
  private stamps: Int32Array = new Int32Array(1024);
  private generation = 1;
  /** The members, in the order added: items[0] to items[size - 1] (valid until the next clear). */
  items: Int32Array = new Int32Array(256);
  size = 0;

  clear(): void {
    this.size = 0;
    this.generation = nextGeneration(this.generation, this.stamps);
  }

  /** Add `x`; false if it was there. */
  add(x: number): boolean {
    if (x >= this.stamps.length) this.stamps = grownTo(this.stamps, x + 1);
    if (this.stamps[x] === this.generation) return false;
    this.stamps[x] = this.generation;
    if (this.size === this.items.length) this.items = grownTo(this.items, this.size + 1);
    this.items[this.size++] = x;
    return true;
  }
}

/** Keys (integers below 2^53), in an open-addressing table cleared by a generation stamp. */
export class StampedKeys {
  private keys = new Float64Array(256);
  private stamps = new Uint32Array(256);
  private generation = 1;
  private count = 0;

  clear(): void {
    this.count = 0;
    this.generation = nextGeneration(this.generation, this.stamps);
  }

  /** Add `key`; false if it was there. */
  add(key: number): boolean {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    for (let i = slotOf(key) & mask; ; i = (i + 1) & mask) {
      if (this.stamps[i] !== this.generation) {
        this.stamps[i] = this.generation;
        this.keys[i] = key;
        this.count++;
        return true;
      }
      if (this.keys[i] === key) return false;
    }
  }

  private grow(): void {
    const { keys, stamps, generation } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.stamps = new Uint32Array(keys.length * 2);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (stamps[i] === generation) this.add(keys[i]!);
  }
}

function slotOf(key: number): number {
  return Math.imul((key >>> 0) ^ Math.floor(key / 0x100000000), 0x9e3779b1) >>> 7;
}
