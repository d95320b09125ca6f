// Owns: formats whose body is one JSON object `{"name": …, "arguments": {…}}` (hermes and its variants):
// the format object built from its data, with its render, envelope and tag operations.

import { QWEN3_TOKENS } from "./qwen3-tokens.js";
import type { FormatData, JsonCallSpelling, JsonSeparators, ToolCallFormat } from "./types.js";

/** Python `json.dumps` separators: both Qwen templates write JSON with `tojson`, which spells it so. */
export const PYTHON_JSON_SEPARATORS: Readonly<JsonSeparators> = Object.freeze({ itemSep: ", ", keySep: ": " });

/** The end of a JSON string, object or array, and a digit for a number that still needs one. */
export const JSON_VALUE_CLOSERS: readonly string[] = Object.freeze(['"', "}", "]", "0"]);

export interface JsonCallSettings extends FormatData {
  spelling: JsonCallSpelling;
}

/** A JSON string literal for a key or a tool name (both plain ASCII words: JSON.stringify spells them as json.dumps does). */
const quoted = (text: string) => JSON.stringify(text);

/** The format object for a JSON-call format. */
export function jsonCallFormat(settings: JsonCallSettings): ToolCallFormat {
  const { spelling: s, ...data } = settings;
  const { open, close, framing } = data;
  return Object.freeze({
    ...data,
    templateMarkers: Object.freeze([...settings.templateMarkers]),
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
    tagWords: () => [open.text, close.text, QWEN3_TOKENS.thinkOpen.text, QWEN3_TOKENS.thinkClose.text],
  } satisfies ToolCallFormat);
}
