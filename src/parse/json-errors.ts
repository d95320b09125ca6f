// Owns: turning a JSON.parse failure into a message a model can act on (where, what, how to fix).

import { jsonErrorOffset } from "../tools/json-position.js";
import { lineColumn } from "../tools/load.js";

/** Describe why `text` is not strict JSON, for the model. `what` names the thing, e.g. `your read_file call`. */
export function describeJsonError(text: string, what: string): string {
  const control = firstRawControlInString(text);
  if (control) {
    const { line, column } = lineColumn(text, control.pos);
    const spelled = control.char === "\n" ? "a raw line break" : control.char === "\t" ? "a raw tab" : `a raw control character (U+${control.char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")})`;
    const escape = control.char === "\n" ? "\\n" : control.char === "\t" ? "\\t" : control.char === "\r" ? "\\r" : "\\u00XX";
    return (
      `${cap(what)} is not valid JSON: a string contains ${spelled} (line ${line}, column ${column}). ` +
      `Inside JSON strings write line breaks as \\n, tabs as \\t and quotes as \\" (here: ${escape}), then make the call again.`
    );
  }
  const pos = jsonErrorOffset(text) ?? text.length;
  const { line, column } = lineColumn(text, pos);
  const reason = pos >= text.length ? "it ends before the JSON is complete" : `unexpected ${JSON.stringify(text.slice(pos, pos + 12))}`;
  return (
    `${cap(what)} is not valid JSON: ${reason} at line ${line}, column ${column}. ` +
    `Write strict JSON (double-quoted keys and strings, no trailing commas, no comments), then make the call again.`
  );
}

/** The first control character (< U+0020) that appears inside a JSON string, if any. */
function firstRawControlInString(text: string): { pos: number; char: string } | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      else if (c < 0x20) return { pos: i, char: text[i]! };
    } else if (c === 0x22) inString = true;
  }
  return undefined;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
