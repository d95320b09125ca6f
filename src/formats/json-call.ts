// Owns: formats whose body is one JSON object `{"name": …, "arguments": {…}}` (hermes and its variants):
// the format object built from its data, with its render, envelope and tag operations.

import { QWEN3_THINK } from "./qwen3-tokens.js";
import type { FormatData, JsonCallSpelling, JsonSeparators, ToolCallFormat } from "./types.js";
import { jsonObjectEnd } from "./json-span.js";

/** Python `json.dumps` separators: both Qwen templates write JSON with `tojson`, which spells it so. */
export const PYTHON_JSON_SEPARATORS: Readonly<JsonSeparators> = Object.freeze({ itemSep: ", ", keySep: ": " });

/** The end of a JSON string, object or array, and a digit for a number that still needs one. */
export const JSON_VALUE_CLOSERS: readonly string[] = Object.freeze(['"', "}", "]", "0"]);

export interface JsonCallSettings extends FormatData {
  spelling: JsonCallSpelling;
}

/** A JSON string literal for a key or a tool name (both plain ASCII words: JSON.stringify spells them as json.dumps does). */
const quoted = (text: string) => JSON.stringify(text);

const isWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function firstNonWs(s: string): number {
  let i = 0;
  while (i < s.length && isWs(s.charCodeAt(i))) i++;
  return i;
}

/** Whether the end of `s` lies inside a JSON string; jumps from quote to quote (a quote after an odd run of backslashes is escaped). */
export function endsInJsonString(s: string, from = 0): boolean {
  let inString = false;
  for (let k = s.indexOf('"', from); k >= 0; k = s.indexOf('"', k + 1)) {
    if (inString) {
      let slashes = 0;
      while (s.charCodeAt(k - 1 - slashes) === 0x5c) slashes++;
      if (slashes % 2 === 1) continue;
    }
    inString = !inString;
  }
  return inString;
}

/** `s` holds one balanced JSON object (braces and brackets outside strings) and only whitespace after it. */
function wholeJsonObject(s: string): boolean {
  const q = firstNonWs(s);
  if (s.charCodeAt(q) !== 0x7b) return false;
  const end = jsonObjectEnd(s, q);
  return end > 0 && firstNonWs(s.slice(end)) === s.length - end;
}

/** The format object for a JSON-call format. */
export function jsonCallFormat(settings: JsonCallSettings): ToolCallFormat {
  const { spelling: s, ...data } = settings;
  const { open, close, framing } = data;
  const think = settings.think ?? QWEN3_THINK;
  return Object.freeze({
    ...data,
    templateMarkers: Object.freeze([...settings.templateMarkers]),
    think: Object.freeze({ ...(settings.think ?? QWEN3_THINK) }),
    firstCallSeparator: settings.firstCallSeparator ?? data.blockSeparator,
    stringText: "json",
    valueClosers: JSON_VALUE_CLOSERS,
    body: Object.freeze({ decoder: "json-call", spelling: Object.freeze({ ...s }) }),
    bareBlock: undefined,
    renderCall(out, call, print) {
      // Arguments given as text are inserted verbatim, as the template does; objects go through `tojson`.
      const args = typeof call.arguments === "string" ? call.arguments : print.json(call.arguments);
      out.markup(open.text + framing + `{"${s.nameKey}"${s.keySep}"`);
      out.content(call.name);
      out.markup(`"${s.itemSep}"${s.argumentsKey}"${s.keySep}`);
      out.content(args);
      out.markup("}" + framing + close.text);
    },
    bodyShape(name, args) {
      return `{"${s.nameKey}"${s.keySep}${name}${s.itemSep}"${s.argumentsKey}"${s.keySep}${args}}`;
    },
    bodyAround(name) {
      return { before: `{${quoted(s.nameKey)}${s.keySep}${quoted(name)}${s.itemSep}${quoted(s.argumentsKey)}${s.keySep}`, after: "}" };
    },
    parameterTags: () => undefined,
    // A close tag inside a JSON string is text (class 2); the body is whole once its object balances.
    startsBody: (inner) => inner.charCodeAt(firstNonWs(inner)) === 0x7b,
    closesAt: (inner) => !endsInJsonString(inner),
    valuesSpanLines: false,
    bodyComplete: wholeJsonObject,
    tagWords: () => [open.text, close.text, think.open.text, think.close.text],
  } satisfies ToolCallFormat);
}
