// Owns: canonical JSON numbers as GBNF: integers in a range (exact, digit by digit) and numbers between
// integer bounds (open or closed), with the digit counts capped so every number has a known worst length.

/** Most digits of an integer part (and of a fraction): 10^15 - 1 is the largest integer the grammar spells. */
export const MAX_DIGITS = 15;

/** A number grammar: the expression, and its shortest and longest spelling in bytes. */
export interface NumberRule {
  expr: string;
  minBytes: number;
  maxBytes: number;
}

const fraction = (d: number) => `("." [0-9]{1,${d}})?`;
const ZERO_FRACTION = `(".0")?`;
const nonzeroFraction = (d: number) => (d === 1 ? `"." [1-9]` : `"." [0-9]{0,${d - 1}} [1-9]`);
const cap = (d: number) => 10 ** d - 1;

function alt(parts: readonly string[]): string {
  return parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`;
}

function digits(n: number): number {
  return String(n).length;
}

/** Equal-length decimal strings lo ≤ hi → GBNF matching every integer string between them. */
function sameLength(lo: string, hi: string): string {
  const n = lo.length;
  if (lo === hi) return `"${lo}"`;
  if (n === 1) return `[${lo}-${hi}]`;
  if (lo[0] === hi[0]) return `"${lo[0]}" ${sameLength(lo.slice(1), hi.slice(1))}`;
  const restLo = lo.slice(1);
  const restHi = hi.slice(1);
  const parts: string[] = [];
  let midLo = Number(lo[0]);
  let midHi = Number(hi[0]);
  if (!/^0*$/.test(restLo)) {
    parts.push(`"${lo[0]}" ${sameLength(restLo, "9".repeat(n - 1))}`);
    midLo += 1;
  }
  let tail: string | undefined;
  if (!/^9*$/.test(restHi)) {
    tail = `"${hi[0]}" ${sameLength("0".repeat(n - 1), restHi)}`;
    midHi -= 1;
  }
  if (midLo <= midHi) parts.push(`${midLo === midHi ? `"${midLo}"` : `[${midLo}-${midHi}]`} [0-9]{${n - 1}}`);
  if (tail) parts.push(tail);
  return alt(parts);
}

/** Natural numbers a..b (0 ≤ a ≤ b ≤ MAX_INT) without leading zeros. */
function naturalRange(a: number, b: number): string {
  const parts: string[] = [];
  for (let d = digits(a); d <= digits(b); d++) {
    const lo = Math.max(a, d === 1 ? 0 : 10 ** (d - 1));
    const hi = Math.min(b, 10 ** d - 1);
    if (lo <= hi) parts.push(sameLength(String(lo), String(hi)));
  }
  return alt(parts);
}

/** Longest spelling (bytes) of the integers integerRule(lo, hi, d) admits; undefined when there are none. */
export function integerBytes(lo: number | undefined, hi: number | undefined, d = MAX_DIGITS): number | undefined {
  const a = Math.max(lo ?? -cap(d), -cap(d));
  const b = Math.min(hi ?? cap(d), cap(d));
  if (a > b) return undefined;
  return Math.max(b >= 0 ? digits(b) : 0, a < 0 ? 1 + digits(-a) : 0);
}

/**
 * Canonical JSON integers in [lo, hi] (undefined = unbounded) with at most `d` digits. Returns undefined when
 * no such integer exists.
 */
export function integerRule(lo: number | undefined, hi: number | undefined, d = MAX_DIGITS): NumberRule | undefined {
  const a = Math.max(lo ?? -cap(d), -cap(d));
  const b = Math.min(hi ?? cap(d), cap(d));
  if (a > b) return undefined;
  const parts: string[] = [];
  let minBytes = Infinity;
  let maxBytes = 0;
  if (b >= 0) {
    const from = Math.max(a, 0);
    parts.push(naturalRange(from, b));
    minBytes = Math.min(minBytes, digits(from));
    maxBytes = Math.max(maxBytes, digits(b));
  }
  if (a < 0) {
    const from = Math.max(-b, 1);
    parts.push(`"-" ${naturalRange(from, -a)}`);
    minBytes = Math.min(minBytes, 1 + digits(from));
    maxBytes = Math.max(maxBytes, 1 + digits(-a));
  }
  return { expr: alt(parts), minBytes, maxBytes };
}

/** A bound of a number interval: an integer value, open (exclusive) or closed. */
export interface Bound {
  value: number;
  open: boolean;
}

/** Non-negative reals in ⟨lo, hi⟩ (integers; hi undefined = unbounded) with at most `d` digits on each side of the point. */
function nonNegative(lo: Bound, hi: Bound | undefined, d: number, build: boolean): { parts: string[]; intDigits: number } {
  const a = lo.value;
  const beyond = hi === undefined || hi.value > cap(d);
  const b = beyond ? cap(d) : hi.value;
  const none = { parts: [], intDigits: 0 };
  if (a > b) return none;
  if (a === b) return !lo.open && (beyond || !hi.open) ? { parts: [`"${a}" ${ZERO_FRACTION}`], intDigits: digits(a) } : none;
  const parts: string[] = [];
  parts.push(lo.open ? `"${a}" ${nonzeroFraction(d)}` : `"${a}" ${fraction(d)}`);
  if (a + 1 <= b - 1) parts.push(build ? `${naturalRange(a + 1, b - 1)} ${fraction(d)}` : "");
  if (beyond) parts.push(`"${b}" ${fraction(d)}`);
  else if (!hi.open) parts.push(`"${b}" ${ZERO_FRACTION}`);
  return { parts, intDigits: digits(b) };
}

/**
 * JSON numbers between integer bounds (undefined = unbounded on that side) with at most `d` digits on each
 * side of the point. Unbounded on both sides the spelling may use an exponent (`1e-05`); bounded, it is plain
 * decimal. Returns undefined when empty.
 */
export function numberRule(lo: Bound | undefined, hi: Bound | undefined, d = MAX_DIGITS, build = true): NumberRule | undefined {
  if (lo === undefined && hi === undefined) {
    const expr = `"-"? ("0" | [1-9]${d > 1 ? ` [0-9]{0,${d - 1}}` : ""}) ${fraction(d)} ("e" [-+]? [0-9]{1,2})?`;
    return { expr, minBytes: 1, maxBytes: 1 + d + 1 + d + 4 };
  }
  const parts: string[] = [];
  let maxBytes = 0;
  // x ≥ 0
  if (hi === undefined || hi.value > 0 || (hi.value === 0 && !hi.open)) {
    const from: Bound = lo !== undefined && lo.value >= 0 ? lo : { value: 0, open: false };
    const pos = nonNegative(from, hi, d, build);
    parts.push(...pos.parts);
    if (pos.parts.length > 0) maxBytes = Math.max(maxBytes, pos.intDigits + 1 + d);
  }
  // x < 0, spelled "-" y with y > 0
  if (lo === undefined || lo.value < 0) {
    const yLo: Bound = hi !== undefined && hi.value < 0 ? { value: -hi.value, open: hi.open } : { value: 0, open: true };
    const yHi: Bound | undefined = lo === undefined ? undefined : { value: -lo.value, open: lo.open };
    const neg = nonNegative(yLo, yHi, d, build);
    if (neg.parts.length > 0) {
      parts.push(`"-" ${alt(neg.parts)}`);
      maxBytes = Math.max(maxBytes, 1 + neg.intDigits + 1 + d);
    }
  }
  if (parts.length === 0) return undefined;
  return { expr: alt(parts), minBytes: 1, maxBytes };
}

/** Longest spelling (bytes) of the numbers numberRule(lo, hi, d) admits; undefined when there are none. */
export function numberBytes(lo: Bound | undefined, hi: Bound | undefined, d = MAX_DIGITS): number | undefined {
  return numberRule(lo, hi, d, false)?.maxBytes;
}

/** The most digits (up to MAX_DIGITS) whose longest spelling fits `budget`; undefined if none. */
export function fitDigits(bytes: (d: number) => number | undefined, budget: number): number | undefined {
  for (let d = MAX_DIGITS; d >= 1; d--) {
    const b = bytes(d);
    if (b !== undefined && b <= budget) return d;
  }
  return undefined;
}

/** Least budget a number needs (its longest spelling at the fewest digits that spell any value) and the most. */
export function digitsCost(bytes: (d: number) => number | undefined): { min: number; max: number } {
  const max = bytes(MAX_DIGITS) ?? Infinity;
  for (let d = 1; d <= MAX_DIGITS; d++) {
    const b = bytes(d);
    if (b !== undefined) return { min: b, max };
  }
  return { min: Infinity, max: Infinity };
}
