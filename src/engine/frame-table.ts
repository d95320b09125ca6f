// Owns: the qtc engine's interned stack frames (a position in the program and the frame below it), as typed arrays
// and one open-addressing index: no object per frame. A list or map per frame below made a step allocate about a
// hundred bytes per frame, and the young generation copied them while a bounded string was masked.

import { grownTo } from "./int-arena.js";

export class FrameTable {
  /** Per frame: its position (index into the program's code) and the frame below it (-1 at the bottom). */
  pos: Int32Array = new Int32Array(1024);
  below: Int32Array = new Int32Array(1024);
  size = 0;
  /** Frame id + 1 by a hash of (position, frame below); 0: empty. At most half full. */
  private slots: Int32Array = new Int32Array(2048);

  /** The frame at `pos` over `below`, made on first use. */
  intern(pos: number, below: number): number {
    const mask = this.slots.length - 1;
    let i = slotOf(pos, below) & mask;
    for (let s = this.slots[i]!; s !== 0; i = (i + 1) & mask, s = this.slots[i]!) {
      if (this.pos[s - 1] === pos && this.below[s - 1] === below) return s - 1;
    }
    const id = this.size++;
    if (id === this.pos.length) {
      this.pos = grownTo(this.pos, id + 1);
      this.below = grownTo(this.below, id + 1);
    }
    this.pos[id] = pos;
    this.below[id] = below;
    this.slots[i] = id + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    const mask = this.slots.length - 1;
    for (let id = 0; id < this.size; id++) {
      let i = slotOf(this.pos[id]!, this.below[id]!) & mask;
      while (this.slots[i] !== 0) i = (i + 1) & mask;
      this.slots[i] = id + 1;
    }
  }
}

function slotOf(pos: number, below: number): number {
  return Math.imul(Math.imul(pos, 0x9e3779b1) ^ (below + 1), 0x85ebca6b) >>> 3;
}
