// Owns: stepping a grammar state by a token's bytes where the token is not whole UTF-8: a character one token
// begins and a later one ends (Qwen3 spells 642 common kanji and every ZWJ emoji only so). The bytes of a
// character not yet complete are carried as a Partial; it lives only while some code point it could still become
// is one the grammar takes next (StackPool.meets), so a token is accepted exactly when some continuation is.

import { DEAD, type StackPool, type StateId } from "./stack-pool.js";

/** A character begun and not yet complete: its bits so far, the bytes still to come, and its width in bytes. */
export interface Partial {
  readonly cp: number;
  readonly need: number;
  readonly width: number;
}

/** A grammar position between tokens: the state, and the character a token left unfinished, if any. */
export interface Position {
  readonly at: StateId;
  readonly partial: Partial | undefined;
}

/** The least code point of each width (a smaller one is an overlong spelling, which is not UTF-8). */
const LEAST = [0, 0, 0x80, 0x800, 0x10000];

/** The code points a partial character may still become: [lo, hi]. */
export function partialRange(p: Partial): [number, number] {
  const span = 2 ** (6 * p.need);
  return [p.cp * span, p.cp * span + span - 1];
}

/** The position after `bytes` from `from`; undefined where the grammar or UTF-8 refuses them. */
export function stepBytes(pool: StackPool, from: Position, bytes: Uint8Array): Position | undefined {
  let at = from.at;
  let cp = from.partial?.cp ?? 0;
  let need = from.partial?.need ?? 0;
  let width = from.partial?.width ?? 0;
  for (const b of bytes) {
    if (need === 0) {
      if (b < 0x80) {
        at = pool.step(at, b);
        if (at === DEAD) return undefined;
        continue;
      }
      if (b < 0xc2 || b > 0xf4) return undefined;
      need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
      width = need + 1;
      cp = b & (0x3f >> need);
      continue;
    }
    if ((b & 0xc0) !== 0x80) return undefined;
    cp = (cp << 6) | (b & 0x3f);
    if (--need > 0) continue;
    if (cp < LEAST[width]! || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
    at = pool.step(at, cp);
    if (at === DEAD) return undefined;
  }
  if (need === 0) return { at, partial: undefined };
  const partial = { cp, need, width };
  const [lo, hi] = partialRange(partial);
  return pool.meets(at, Math.max(lo, LEAST[width]!), Math.min(hi, 0x10ffff)) ? { at, partial } : undefined;
}

/** Whether a token whose first byte is `byte` could be taken at `at` (no character pending): its group's first test. */
export function byteMayStart(pool: StackPool, at: StateId, byte: number): boolean {
  if (byte < 0x80) return pool.step(at, byte) !== DEAD;
  if (byte < 0xc2 || byte > 0xf4) return false;
  const need = byte >= 0xf0 ? 3 : byte >= 0xe0 ? 2 : 1;
  const [lo, hi] = partialRange({ cp: byte & (0x3f >> need), need, width: need + 1 });
  return pool.meets(at, Math.max(lo, LEAST[need + 1]!), Math.min(hi, 0x10ffff));
}
