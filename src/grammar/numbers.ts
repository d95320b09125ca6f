// Owns: canonical JSON numbers as GBNF: integers in a range (exact, digit by digit) and numbers between
// decimal bounds (open or closed), with the digit counts capped so every number has a known worst length, and
// the fraction digits capped apart (multipleOf 0.01: at most 2).

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

/** A bound of a number interval: a decimal value, open (exclusive) or closed. */
export interface Bound {
  value: number;
  open: boolean;
}

/** `cls` repeated lo..hi times (GBNF); "" when hi is 0. */
function rep(cls: string, lo: number, hi: number): string {
  if (hi <= 0) return "";
  return lo === hi ? (hi === 1 ? cls : `${cls}{${hi}}`) : `${cls}{${lo},${hi}}`;
}

/** A digit class from `from` to `to` (undefined when empty). */
function digitClass(from: number, to: number): string | undefined {
  if (from > to) return undefined;
  return from === to ? `"${from}"` : `[${from}-${to}]`;
}

const seq = (...xs: string[]) => xs.filter((x) => x !== "").join(" ");

/**
 * Fraction digits (at most `r`, possibly none when `empty`) whose decimal value compares to `0.f` as `cmp` says.
 * `f` has no trailing zeros. Undefined when no digits do.
 */
function fractionDigits(f: string, r: number, cmp: "ge" | "gt" | "le" | "lt", empty: boolean): string | undefined {
  const any = (n: number) => rep("[0-9]", 0, n);
  if (f === "") {
    // Matched every digit of the bound: what is left compares with 0.
    if (cmp === "ge") return empty ? any(r) || "" : r > 0 ? rep("[0-9]", 1, r) : undefined;
    if (cmp === "le") return empty ? rep(`"0"`, 0, r) : r > 0 ? rep(`"0"`, 1, r) : undefined;
    if (cmp === "gt") return r > 0 ? seq(any(r - 1), "[1-9]") : undefined;
    return undefined;
  }
  if (r === 0) return empty && (cmp === "le" || cmp === "lt") ? "" : undefined;
  const d = Number(f[0]);
  const options: string[] = [];
  const beyond = cmp === "ge" || cmp === "gt" ? digitClass(d + 1, 9) : digitClass(0, d - 1);
  if (beyond) options.push(seq(beyond, any(r - 1)));
  const same = fractionDigits(f.slice(1), r - 1, cmp, true);
  if (same !== undefined) options.push(seq(`"${d}"`, same));
  // Fewer digits than the bound: a value below it (0.2 < 0.25).
  if (empty && (cmp === "le" || cmp === "lt")) options.push("");
  if (options.length === 0) return undefined;
  const body = options.filter((o) => o !== "");
  const optional = options.includes("");
  if (body.length === 0) return "";
  const group = body.length === 1 ? body[0]! : `(${body.join(" | ")})`;
  return optional ? `(${body.join(" | ")})?` : group;
}

/** Fraction digits (at least one, at most r) with a value above 0 and at most (`le`) or below (`lt`) `0.f`. */
function positiveFraction(f: string, r: number, cmp: "le" | "lt"): string | undefined {
  if (f === "" || r === 0) return undefined;
  const d = Number(f[0]);
  if (d === 0) {
    const rest = positiveFraction(f.slice(1), r - 1, cmp);
    return rest === undefined ? undefined : seq(`"0"`, rest);
  }
  const options: string[] = [];
  const below = digitClass(1, d - 1);
  if (below) options.push(seq(below, rep("[0-9]", 0, r - 1)));
  const same = fractionDigits(f.slice(1), r - 1, cmp, true);
  if (same !== undefined) options.push(seq(`"${d}"`, same));
  const zero = fractionDigits("", r - 1, "gt", true);
  if (zero !== undefined) options.push(seq(`"0"`, zero));
  return options.length === 0 ? undefined : alt(options);
}

/** What may follow the integer part so that the fraction compares to `0.f` as `cmp` says (at most r digits). */
function fractionPart(f: string, r: number, cmp: "ge" | "gt" | "le" | "lt"): string | undefined {
  if (f === "" && cmp === "ge") return r > 0 ? `("." ${rep("[0-9]", 1, r)})?` : "";
  if (f === "" && cmp === "le") return r > 0 ? ZERO_FRACTION : "";
  if (f === "" && cmp === "gt") return r > 0 ? `"." ${fractionDigits("", r, "gt", false)}` : undefined;
  if (f === "" && cmp === "lt") return undefined;
  const digitsPart = fractionDigits(f, r, cmp, false);
  // No fraction at all is 0, below every nonzero 0.f.
  const none = cmp === "le" || cmp === "lt";
  if (digitsPart === undefined) return none ? "" : undefined;
  return none ? `("." ${digitsPart})?` : `"." ${digitsPart}`;
}

/** The integer part and the fraction digits of a non-negative bound (undefined when it needs an exponent). */
function splitBound(v: number): { int: number; frac: string } | undefined {
  const text = String(v);
  if (/e/i.test(text)) return undefined;
  const [int, frac = ""] = text.split(".");
  return { int: Number(int), frac: frac.replace(/0+$/, "") };
}

/**
 * Non-negative reals in ⟨lo, hi⟩ (hi undefined = unbounded) with at most `d` digits before the point and `r`
 * after it. A bound may have a fraction; one whose integer parts are equal must then be whole on one side.
 */
function nonNegative(lo: Bound, hi: Bound | undefined, d: number, r: number, build: boolean): { parts: string[]; intDigits: number } | undefined {
  const none = { parts: [], intDigits: 0 };
  const l = splitBound(lo.value);
  const h = hi === undefined ? undefined : splitBound(hi.value);
  if (!l || (hi !== undefined && !h)) return undefined;
  const a = l.int;
  const beyond = hi === undefined || h!.int > cap(d);
  const b = beyond ? cap(d) : h!.int;
  if (a > b) return none;
  const fb = beyond ? "" : h!.frac;
  const low = fractionPart(l.frac, r, lo.open ? "gt" : "ge");
  const high = beyond ? fraction(r) : fractionPart(fb, r, hi!.open ? "lt" : "le");
  if (a === b) {
    if (l.frac === "" && fb === "") return !lo.open && (beyond || !hi!.open) ? { parts: [`"${a}" ${ZERO_FRACTION}`], intDigits: digits(a) } : none;
    if (l.frac !== "" && fb !== "") return undefined;
    // One side whole: the other side's comparison, with the whole side's own (closed: any; open: not 0).
    if (l.frac === "" && lo.open) {
      const above = positiveFraction(fb, r, hi!.open ? "lt" : "le");
      return above === undefined ? none : { parts: [`"${a}" "." ${above}`], intDigits: digits(a) };
    }
    if (l.frac === "") return high === undefined ? none : { parts: [seq(`"${a}"`, high)], intDigits: digits(a) };
    return !beyond && hi!.open ? none : low === undefined ? none : { parts: [seq(`"${a}"`, low)], intDigits: digits(a) };
  }
  const parts: string[] = [];
  if (low !== undefined) parts.push(seq(`"${a}"`, low));
  if (a + 1 <= b - 1) parts.push(build ? seq(naturalRange(a + 1, b - 1), fraction(r)) : "");
  if (high !== undefined) parts.push(seq(`"${b}"`, high));
  return { parts, intDigits: digits(b) };
}

/**
 * JSON numbers between bounds (undefined = unbounded on that side) with at most `d` digits before the point and
 * `r` (default `d`) after it. Unbounded on both sides and with no fraction cap the spelling may use an exponent
 * (`1e-05`); otherwise it is plain decimal. Returns undefined when empty, or when a bound cannot be spelled
 * (see nonNegative; the compiler refuses those first).
 */
export function numberRule(lo: Bound | undefined, hi: Bound | undefined, d = MAX_DIGITS, build = true, r = d): NumberRule | undefined {
  if (lo === undefined && hi === undefined) {
    const exponent = r >= d ? ` ("e" [-+]? [0-9]{1,2})?` : "";
    const expr = `"-"? ("0" | [1-9]${d > 1 ? ` [0-9]{0,${d - 1}}` : ""}) ${fraction(r)}${exponent}`;
    return { expr, minBytes: 1, maxBytes: 1 + d + 1 + r + (exponent ? 4 : 0) };
  }
  const parts: string[] = [];
  let maxBytes = 0;
  // x ≥ 0
  if (hi === undefined || hi.value > 0 || (hi.value === 0 && !hi.open)) {
    const from: Bound = lo !== undefined && lo.value >= 0 ? lo : { value: 0, open: false };
    const pos = nonNegative(from, hi, d, r, build);
    if (!pos) return undefined;
    parts.push(...pos.parts);
    if (pos.parts.length > 0) maxBytes = Math.max(maxBytes, pos.intDigits + 1 + r);
  }
  // x < 0, spelled "-" y with y > 0
  if (lo === undefined || lo.value < 0) {
    const yLo: Bound = hi !== undefined && hi.value < 0 ? { value: -hi.value, open: hi.open } : { value: 0, open: true };
    const yHi: Bound | undefined = lo === undefined ? undefined : { value: -lo.value, open: lo.open };
    const neg = nonNegative(yLo, yHi, d, r, build);
    if (!neg) return undefined;
    if (neg.parts.length > 0) {
      parts.push(`"-" ${alt(neg.parts)}`);
      maxBytes = Math.max(maxBytes, 1 + neg.intDigits + 1 + r);
    }
  }
  if (parts.length === 0) return undefined;
  return { expr: alt(parts), minBytes: 1, maxBytes };
}

/** Whether numberRule can spell these bounds (an exponent, or a fraction on both sides of one integer, cannot). */
export function numberBoundsSpellable(lo: Bound | undefined, hi: Bound | undefined): boolean {
  const l = lo === undefined ? undefined : splitBound(Math.abs(lo.value));
  const h = hi === undefined ? undefined : splitBound(Math.abs(hi.value));
  if ((lo && !l) || (hi && !h)) return false;
  return !(l && h && Math.sign(lo!.value) === Math.sign(hi!.value) && l.int === h.int && l.frac !== "" && h.frac !== "");
}

/** Longest spelling (bytes) of the numbers numberRule(lo, hi, d) admits; undefined when there are none. */
export function numberBytes(lo: Bound | undefined, hi: Bound | undefined, d = MAX_DIGITS, r = d): number | undefined {
  return numberRule(lo, hi, d, false, Math.min(r, d))?.maxBytes;
}

/** The most digits (up to MAX_DIGITS) whose longest spelling fits `budget`; undefined if none. */
export function fitDigits(bytes: (d: number) => number | undefined, budget: number): number | undefined {
  for (let d = MAX_DIGITS; d >= 1; d--) {
    const b = bytes(d);
    if (b !== undefined && b <= budget) return d;
  }
  return undefined;
}

/** Most digits on each side of the point of a number that is not an integer: 14 in all stay exact in a double. */
const FRACTIONAL_DIGITS = 7;

/** Longest spelling (bytes) of fractionalRule(d). */
export function fractionalBytes(d: number): number {
  return 2 + 2 * Math.min(d, FRACTIONAL_DIGITS);
}

/**
 * Numbers that are not integers: a point and a last fraction digit that is not 0, at most d (≤ 7) digits on each
 * side (so that the value read back is no integer either).
 */
export function fractionalRule(d: number): NumberRule {
  const n = Math.min(d, FRACTIONAL_DIGITS);
  const whole = n === 1 ? "[0-9]" : `("0" | [1-9] [0-9]{0,${n - 1}})`;
  const fraction = n === 1 ? "[1-9]" : `[0-9]{0,${n - 1}} [1-9]`;
  return { expr: `"-"? ${whole} "." ${fraction}`, minBytes: 3, maxBytes: fractionalBytes(n) };
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
