// Owns: Python spellings the chat templates produce: json.dumps (transformers' `tojson`), str() (Jinja's
// `| string`), repr() of strings, and str.strip() (Jinja's `| trim`).
//
// Known difference: JavaScript numbers do not remember whether Python saw an int or a float, so an
// integer-valued float (Python `1.0`, `1e16`) is written as an integer (`1`, `10000000000000000`).
// Objects keep insertion order, except that JavaScript lists integer-like keys ("1", "2") first.

import { fail, type ErrorCode } from "../errors.js";

/**
 * Deepest nesting of arrays and objects a rendered value may have. The printers recurse once per level, so a
 * value nested 10,000 deep (history replayed by a library caller) would overflow the stack; CPython's
 * json.dumps gives up near 1,000 too. 256 is far above what the parser (32) and the schema limits (64) admit.
 */
export const MAX_RENDER_DEPTH = 256;

/** What a printer tracks while it descends: objects on the path (cycles), the depth, the code to fail with. */
interface Walk {
  seen: Set<object>;
  depth: number;
  code: ErrorCode;
}

/** Characters Python's str.isspace() accepts, i.e. what str.strip() with no argument removes. */
const PY_WHITESPACE = new Set(
  "\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000",
);

/** Python `s.lstrip(chars)`; without `chars`, Python's whitespace. */
export function pythonLstrip(s: string, chars?: string): string {
  const drop = chars === undefined ? PY_WHITESPACE : new Set(chars);
  let i = 0;
  while (i < s.length && drop.has(s[i]!)) i++;
  return s.slice(i);
}

/** Python `s.rstrip(chars)`; without `chars`, Python's whitespace. */
export function pythonRstrip(s: string, chars?: string): string {
  const drop = chars === undefined ? PY_WHITESPACE : new Set(chars);
  let j = s.length;
  while (j > 0 && drop.has(s[j - 1]!)) j--;
  return s.slice(0, j);
}

/** Python `s.strip(chars)` (Jinja's `trim` filter when `chars` is omitted). */
export function pythonStrip(s: string, chars?: string): string {
  return pythonRstrip(pythonLstrip(s, chars), chars);
}

/** Python repr() of a float that is not integer-valued: shortest round-trip digits, exponent below 1e-4. */
function pythonFloatRepr(x: number): string {
  const exp = x.toExponential(); // shortest digits that round-trip, e.g. "1.5e-7"
  const [mantissa, power] = exp.split("e") as [string, string];
  const e = Number(power);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(x);
}

/** A number as Python prints it (json.dumps and str() agree for finite numbers). */
function pythonNumber(x: number, nonFinite: "json" | "str"): string {
  if (Number.isNaN(x)) return nonFinite === "json" ? "NaN" : "nan";
  if (!Number.isFinite(x)) {
    if (nonFinite === "json") return x > 0 ? "Infinity" : "-Infinity";
    return x > 0 ? "inf" : "-inf";
  }
  if (Number.isInteger(x)) return Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString();
  return pythonFloatRepr(x);
}

const JSON_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** A string as json.dumps(ensure_ascii=False) writes it: only `"`, `\` and C0 controls are escaped. */
export function pythonJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    const short = JSON_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

function enter(walk: Walk, value: object): void {
  if (walk.seen.has(value)) fail(walk.code, "a value to render contains a circular reference");
  if (walk.depth >= MAX_RENDER_DEPTH) {
    fail(walk.code, `a value to render is nested deeper than ${MAX_RENDER_DEPTH} levels; send a flatter value`);
  }
  walk.seen.add(value);
  walk.depth++;
}

function leave(walk: Walk, value: object): void {
  walk.seen.delete(value);
  walk.depth--;
}

/** A value prepared like JSON.stringify does: toJSON() applied; undefined, functions and symbols absent. */
function prepare(value: unknown): unknown {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return (value as { toJSON: () => unknown }).toJSON();
  }
  return value;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** How a Python printer spells scalars: json.dumps and repr()/str() walk containers alike and differ only here. */
interface Spelling {
  string(s: string): string;
  numbers: "json" | "str";
  /** false, true */
  booleans: readonly [string, string];
  none: string;
}

const JSON_SPELLING: Spelling = { string: (s) => pythonJsonString(s), numbers: "json", booleans: ["false", "true"], none: "null" };
const REPR_SPELLING: Spelling = { string: (s) => pythonStringRepr(s), numbers: "str", booleans: ["False", "True"], none: "None" };

function spell(value: unknown, walk: Walk, sp: Spelling): string {
  value = prepare(value);
  if (value === null || isAbsent(value)) return sp.none;
  switch (typeof value) {
    case "string":
      return sp.string(value);
    case "number":
      return pythonNumber(value, sp.numbers);
    case "bigint":
      return value.toString();
    case "boolean":
      return sp.booleans[value ? 1 : 0]!;
  }
  const obj = value as object;
  enter(walk, obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = `[${obj.map((item) => spell(item, walk, sp)).join(", ")}]`;
  } else {
    const parts: string[] = [];
    for (const [key, item] of Object.entries(obj)) {
      if (isAbsent(prepare(item))) continue;
      parts.push(`${sp.string(key)}: ${spell(item, walk, sp)}`);
    }
    out = `{${parts.join(", ")}}`;
  }
  leave(walk, obj);
  return out;
}

/**
 * `json.dumps(value, ensure_ascii=False)` as transformers' `tojson` filter prints it: `", "` and `": "`
 * separators, non-ASCII kept, key order preserved, floats in Python's repr (`1e-05`, `2.5`). A circular or
 * too deep value (see MAX_RENDER_DEPTH) throws a QtcException with `code`. Default code: "invalid_messages".
 */
export function pythonJsonDumps(value: unknown, code: ErrorCode = "invalid_messages"): string {
  return spell(value, { seen: new Set(), depth: 0, code }, JSON_SPELLING);
}

/** Python's str.isprintable() per character, as repr() uses it. */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python repr() of a string: single quotes unless it holds `'` and no `"`; non-printables escaped. */
export function pythonStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch !== " " && NON_PRINTABLE.test(ch)) {
      if (code < 0x100) out += `\\x${code.toString(16).padStart(2, "0")}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, "0")}`;
      else out += `\\U${code.toString(16).padStart(8, "0")}`;
    } else out += ch;
  }
  return out + quote;
}

/**
 * Python `str(value)` of a JSON value, as Jinja's `| string` filter prints it (`True`, `None`, `['a', 'b']`).
 * Circular or too deep values throw like pythonJsonDumps. Default code: "invalid_messages".
 */
export function pythonStr(value: unknown, code: ErrorCode = "invalid_messages"): string {
  const v = prepare(value);
  return typeof v === "string" ? v : spell(v, { seen: new Set(), depth: 0, code }, REPR_SPELLING);
}
