// Owns: the canonical spelling of JSON values in calls (Python `json.dumps(…, ensure_ascii=False)`, which the
// Qwen templates use: ", " and ": " separators, raw non-ASCII), and UTF-8 lengths.

import { PYTHON_JSON_SEPARATORS } from "../formats/index.js";

/**
 * Separators of JSON values in calls: both Qwen templates write JSON with `tojson` (hermes for the whole call,
 * qwen3coder for non-string parameter values), whose spelling src/formats names once.
 */
export const JSON_SPELLING = PYTHON_JSON_SEPARATORS;
/** Bytes of the separators (ASCII). */
export const ITEM_SEP_BYTES = JSON_SPELLING.itemSep.length;
export const KEY_SEP_BYTES = JSON_SPELLING.keySep.length;

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** A JSON string literal as json.dumps spells it (control characters as `\u00XX`). */
export function jsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  let out = '"';
  for (const ch of text) {
    const esc = ESCAPES[ch];
    if (esc) out += esc;
    else if (ch.charCodeAt(0) < 0x20) out += "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/** Canonical JSON text of a value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "string") return jsonString(value);
  const { itemSep, keySep } = JSON_SPELLING;
  if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(itemSep) + "]";
  if (typeof value === "object") {
    return "{" + Object.entries(value as Record<string, unknown>).map(([k, v]) => jsonString(k) + keySep + canonicalJson(v)).join(itemSep) + "}";
  }
  return "null";
}

/** UTF-8 length of a string, in bytes. */
export function utf8Length(text: string): number {
  if (text.length > 256) return Buffer.byteLength(text, "utf8");
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
