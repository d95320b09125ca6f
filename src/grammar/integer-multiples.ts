// Owns: the GBNF of the integers in a range that are multiples of k (multipleOf on integers): digits read left to
// right carry their remainder mod k (one rule per count of digits left and remainder), the range's ends held digit
// by digit along the tight prefixes.

import type { NumberRule } from "./numbers.js";

/** Largest multipleOf spelled by the remainder rules (they number up to MAX_DIGITS × k). */
export const MAX_MULTIPLE = 64;

/** Adds a rule and returns its name (a RuleSet's add). */
type AddRule = (hint: string, body: string) => string;

const cap = (d: number) => 10 ** d - 1;

/** Alternatives grouped by what follows: `[digits] next` per distinct next, "" for an empty next. */
function grouped(choices: readonly { digit: number; next: string }[]): string | undefined {
  const byNext = new Map<string, number[]>();
  for (const c of choices) byNext.set(c.next, [...(byNext.get(c.next) ?? []), c.digit]);
  const alts = [...byNext].map(([next, ds]) => {
    const cls = ds.length === 1 ? `"${ds[0]}"` : `[${ds.map(String).join("")}]`;
    return next === "" ? cls : `${cls} ${next}`;
  });
  return alts.length === 0 ? undefined : alts.length === 1 ? alts[0] : `(${alts.join(" | ")})`;
}

class Multiples {
  /** Free rules by "n:r": n digits left, remainder r so far; null when no digits finish a multiple. */
  private readonly free = new Map<string, string | null>();

  constructor(
    private readonly k: number,
    private readonly add: AddRule,
  ) {}

  /** Any n digits after remainder r that end on remainder 0 ("" for n = 0 and r = 0). */
  freeRule(n: number, r: number): string | null {
    const key = `${n}:${r}`;
    if (this.free.has(key)) return this.free.get(key)!;
    let out: string | null;
    if (n === 0) out = r === 0 ? "" : null;
    else {
      const choices: { digit: number; next: string }[] = [];
      for (let digit = 0; digit <= 9; digit++) {
        const next = this.freeRule(n - 1, (10 * r + digit) % this.k);
        if (next !== null) choices.push({ digit, next });
      }
      const body = grouped(choices);
      out = body === undefined ? null : this.add(`int-mult-${this.k}-${n}`, body);
    }
    this.free.set(key, out);
    return out;
  }

  /** Digit strings of lo.length from position i between lo and hi (each bound binding while `tl`/`th`) ending on remainder 0. */
  between(lo: string, hi: string, i: number, r: number, tl: boolean, th: boolean): string | null {
    if (i === lo.length) return r === 0 ? "" : null;
    if (!tl && !th) return this.freeRule(lo.length - i, r);
    const [from, to] = [tl ? Number(lo[i]) : 0, th ? Number(hi[i]) : 9];
    const choices: { digit: number; next: string }[] = [];
    for (let digit = from; digit <= to; digit++) {
      const next = this.between(lo, hi, i + 1, (10 * r + digit) % this.k, tl && digit === from, th && digit === to);
      if (next !== null) choices.push({ digit, next });
    }
    return grouped(choices) ?? null;
  }

  /** Natural numbers a..b (0 ≤ a ≤ b) that are multiples, without leading zeros; null when there are none. */
  naturals(a: number, b: number): string | null {
    const parts: string[] = [];
    for (let len = String(a).length; len <= String(b).length; len++) {
      const lo = Math.max(a, len === 1 ? 0 : 10 ** (len - 1));
      const hi = Math.min(b, cap(len));
      if (lo > hi) continue;
      const p = this.between(String(lo), String(hi), 0, 0, true, true);
      if (p !== null) parts.push(p);
    }
    return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`;
  }
}

/**
 * The multiples of `k` (a whole number 2..MAX_MULTIPLE) in lo..hi, at most `d` digits, as GBNF; undefined when
 * there are none. `lo`/`hi` are multiples already (the lowering rounds them inward), so the byte counts are exact.
 */
export function multiplesRule(lo: number | undefined, hi: number | undefined, d: number, k: number, add: AddRule): NumberRule | undefined {
  const m = new Multiples(k, add);
  const a = Math.max(lo ?? -cap(d), -cap(d));
  const b = Math.min(hi ?? cap(d), cap(d));
  if (a > b) return undefined;
  const parts: string[] = [];
  const size = (v: number) => String(v).length;
  let [minBytes, maxBytes] = [Infinity, 0];
  if (b >= 0) {
    const p = m.naturals(Math.max(a, 0), b);
    if (p !== null) {
      parts.push(p);
      const least = Math.ceil(Math.max(a, 0) / k) * k;
      minBytes = Math.min(minBytes, size(least));
      maxBytes = Math.max(maxBytes, size(b));
    }
  }
  if (a < 0) {
    const p = m.naturals(Math.max(-b, 1), -a);
    if (p !== null) {
      parts.push(`"-" ${p}`);
      const least = Math.ceil(Math.max(-b, 1) / k) * k;
      minBytes = Math.min(minBytes, 1 + size(least));
      maxBytes = Math.max(maxBytes, 1 + size(-a));
    }
  }
  if (parts.length === 0) return undefined;
  return { expr: parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`, minBytes, maxBytes };
}
