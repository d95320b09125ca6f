// Owns: a mask as a bitset over the vocabulary (one bit per token id, set where the token may come next): the form
// an exact mask takes where free text may come, since copying a precomputed bitset and fixing a few thousand bits
// costs microseconds where listing 100,000 ids cost milliseconds. Also the lists a consumer derives from one
// (the allowed ids where few are allowed, the banned ids where most are), each computed once per bitset.

/** Words of a bitset over `vocabSize` tokens. */
export const wordsFor = (vocabSize: number): number => (vocabSize + 31) >>> 5;

export const hasBit = (bits: Uint32Array, t: number): boolean => (bits[t >>> 5]! & (1 << (t & 31))) !== 0;

/** Set token `t`; returns 1 when it was not set before (for a running count). */
export function setBit(bits: Uint32Array, t: number): number {
  const w = t >>> 5;
  const m = 1 << (t & 31);
  if (bits[w]! & m) return 0;
  bits[w]! |= m;
  return 1;
}

/** Clear token `t`; returns 1 when it was set before. */
export function clearBit(bits: Uint32Array, t: number): number {
  const w = t >>> 5;
  const m = 1 << (t & 31);
  if (!(bits[w]! & m)) return 0;
  bits[w]! &= ~m;
  return 1;
}

/** The ids whose bit is `want` (set or clear), below vocabSize, ascending. */
function idsWhere(bits: Uint32Array, vocabSize: number, want: boolean): number[] {
  const out: number[] = [];
  for (let w = 0; w < bits.length; w++) {
    let x = want ? bits[w]! : ~bits[w]!;
    while (x !== 0) {
      const low = x & -x;
      const t = (w << 5) + 31 - Math.clz32(low);
      if (t >= vocabSize) break;
      out.push(t);
      x ^= low;
    }
  }
  return out;
}

const allowedLists = new WeakMap<Uint32Array, readonly number[]>();
const bannedLists = new WeakMap<Uint32Array, readonly number[]>();

/** The allowed ids of a bitset, listed once per bitset (a mask is cached per state, so its list is too). */
export function allowedIds(bits: Uint32Array, vocabSize: number): readonly number[] {
  let list = allowedLists.get(bits);
  if (!list) allowedLists.set(bits, (list = idsWhere(bits, vocabSize, true)));
  return list;
}

/** The banned ids of a bitset, listed once per bitset. */
export function bannedIds(bits: Uint32Array, vocabSize: number): readonly number[] {
  let list = bannedLists.get(bits);
  if (!list) bannedLists.set(bits, (list = idsWhere(bits, vocabSize, false)));
  return list;
}
