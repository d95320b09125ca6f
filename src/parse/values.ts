// Owns: typing qwen3coder XML values by the schema (strings stay raw; JSON first, then Python literals) and a
// small, bounded Python-literal reader (True/False/None, numbers, quoted strings, lists, tuples, dicts).

import type { TypeSet } from "../tools/schema-info.js";

const MAX_LITERAL_DEPTH = 64;

/**
 * The value an XML parameter text stands for. No schema (`undefined`): the raw string. A schema type that
 * allows strings: the raw string, never coerced. Otherwise JSON, then a Python literal, then the spellings
 * models really write (docs/parser.md, class 6): a boolean in any case, `None`/`NULL` where null is allowed,
 * and an object or list double-encoded as a string (decoded once more); else the raw string (which then fails
 * the schema check with a clear message).
 */
export function typeXmlValue(text: string, types: TypeSet | undefined): unknown {
  if (!readsLiteral(types)) return nullableString(text, types) ? null : text;
  const t = text.trim();
  const word = spelledWord(t, types);
  if (word !== undefined) return word.value;
  // Only texts that can start a JSON value or a Python literal are tried (no exception for plain words).
  if (t === "" || !LITERAL_START.test(t)) return text;
  const value = readLiteral(t);
  if (value === NOT_A_LITERAL) return text;
  if (typeof value === "string" && wantsContainer(types)) {
    const inner = value.trim();
    if (inner.startsWith("{") || inner.startsWith("[")) {
      const decoded = readLiteral(inner);
      if (decoded !== NOT_A_LITERAL && typeof decoded === "object") return decoded;
    }
  }
  return value;
}

/**
 * A bare `null` (or Python's `None`) for a schema that admits both a string and null is the JSON null the model
 * meant (issue 44); for a string-only schema it stays text.
 */
function nullableString(text: string, types: TypeSet | undefined): boolean {
  if (types === undefined || types === "any" || !types.has("null")) return false;
  const t = text.trim();
  return t === "null" || t === "None";
}

const NOT_A_LITERAL = Symbol("not a literal");

function readLiteral(t: string): unknown {
  try {
    return JSON.parse(t);
  } catch {
    /* not JSON: try a Python literal */
  }
  const py = parsePythonLiteral(t);
  return py.ok ? py.value : NOT_A_LITERAL;
}

/** `true`/`false` in any case where a boolean is allowed; `null`/`None` in any case where null is. */
function spelledWord(t: string, types: TypeSet): { value: boolean | null } | undefined {
  if (t.length > 5) return undefined;
  const lower = t.toLowerCase();
  const allows = (type: "boolean" | "null") => types === "any" || types.has(type);
  if ((lower === "true" || lower === "false") && allows("boolean")) return { value: lower === "true" };
  if ((lower === "null" || lower === "none") && allows("null")) return { value: null };
  return undefined;
}

/** The schema wants an object or an array (and no string, or readsLiteral would have kept the text). */
function wantsContainer(types: TypeSet): boolean {
  return types !== "any" && (types.has("object") || types.has("array"));
}

/** Whether typeXmlValue reads a value of these types as JSON or a Python literal (else it stays the raw text). */
export function readsLiteral(types: TypeSet | undefined): types is TypeSet {
  return types !== undefined && (types === "any" || !types.has("string"));
}

const LITERAL_START = /^(?:[-+.\d{["'(]|true|false|null|True|False|None)/;

/** Set an own enumerable property, even for keys like `__proto__` (never touches the prototype). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** Read a whole Python literal (the repr of a dict, list, tuple, str, int, float, bool or None). */
export function parsePythonLiteral(text: string): { ok: true; value: unknown } | { ok: false } {
  const reader = new PyReader(text);
  try {
    const value = reader.value(0);
    reader.ws();
    return reader.pos === text.length ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

class PyReader {
  pos = 0;
  constructor(private readonly s: string) {}

  ws(): void {
    while (this.pos < this.s.length && " \t\r\n".includes(this.s[this.pos]!)) this.pos++;
  }

  value(depth: number): unknown {
    if (depth > MAX_LITERAL_DEPTH) throw new Error("too deep");
    this.ws();
    const c = this.s[this.pos];
    if (c === "{") return this.dict(depth);
    if (c === "[") return this.seq("]", depth);
    if (c === "(") return this.seq(")", depth);
    if (c === "'" || c === '"') return this.str();
    for (const [word, v] of WORDS) {
      if (this.s.startsWith(word, this.pos) && !/[A-Za-z0-9_]/.test(this.s[this.pos + word.length] ?? "")) {
        this.pos += word.length;
        return v;
      }
    }
    const m = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.pos, this.pos + 400));
    if (!m) throw new Error("bad literal");
    this.pos += m[0].length;
    const n = Number(m[0]);
    if (!Number.isFinite(n)) throw new Error("bad number");
    return n;
  }

  dict(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.ws();
    if (this.s[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      const c = this.s[this.pos];
      if (c !== "'" && c !== '"') throw new Error("dict keys must be strings");
      const key = this.str();
      this.ws();
      if (this.s[this.pos++] !== ":") throw new Error("expected :");
      setOwn(out, key, this.value(depth + 1));
      this.ws();
      const sep = this.s[this.pos++];
      if (sep === "}") return out;
      if (sep !== ",") throw new Error("expected , or }");
      this.ws();
      if (this.s[this.pos] === "}") {
        this.pos++;
        return out;
      }
    }
  }

  seq(close: "]" | ")", depth: number): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.ws();
    if (this.s[this.pos] === close) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const sep = this.s[this.pos++];
      if (sep === close) return out;
      if (sep !== ",") throw new Error("expected , or close");
      this.ws();
      if (this.s[this.pos] === close) {
        this.pos++;
        return out;
      }
    }
  }

  str(): string {
    const quote = this.s[this.pos++]!;
    let out = "";
    let run = this.pos;
    for (;;) {
      const c = this.s[this.pos];
      if (c === undefined || c === "\n") throw new Error("unterminated string");
      if (c === quote) {
        out += this.s.slice(run, this.pos++);
        return out;
      }
      if (c === "\\") {
        out += this.s.slice(run, this.pos);
        out += this.escape();
        run = this.pos;
      } else this.pos++;
    }
  }

  escape(): string {
    const e = this.s[this.pos + 1];
    this.pos += 2;
    switch (e) {
      case "n": return "\n";
      case "t": return "\t";
      case "r": return "\r";
      case "0": return "\0";
      case "\\": case "'": case '"': return e;
      case "x": return this.hex(2);
      case "u": return this.hex(4);
      case "U": return this.hex(8);
      default: throw new Error("bad escape");
    }
  }

  hex(n: number): string {
    const h = this.s.slice(this.pos, this.pos + n);
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) throw new Error("bad hex escape");
    this.pos += n;
    const cp = parseInt(h, 16);
    if (cp > 0x10ffff) throw new Error("bad code point");
    return String.fromCodePoint(cp);
  }
}

const WORDS: ReadonlyArray<readonly [string, unknown]> = [
  ["True", true],
  ["False", false],
  ["None", null],
];
