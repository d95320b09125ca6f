// Owns: the format registry: lookup by id, resolving an id or a format object once, detection from a chat
// template, and the formats the parser's "auto" mode tells apart.

import { fail } from "../errors.js";
import { hermes } from "./hermes.js";
import { qwen35 } from "./qwen35.js";
import { qwen36, qwen38 } from "./qwen38.js";
import { qwen3coder } from "./qwen3coder.js";
import type { FormatId, ToolCallFormat } from "./types.js";

export type {
  BareBlock,
  CallBody,
  CallWriter,
  DecoderName,
  FormatData,
  FormatId,
  JsonCallSpelling,
  JsonSeparators,
  ParameterTags,
  TemplateVariable,
  PastCall,
  SpecialTag,
  ThinkTags,
  ToolCallFormat,
  ValuePrinter,
  XmlCallSpelling,
} from "./types.js";
export { hermes, HERMES_SETTINGS } from "./hermes.js";
export { qwen3coder, QWEN3CODER_SETTINGS } from "./qwen3coder.js";
export { qwen35, QWEN35_SETTINGS } from "./qwen35.js";
export { qwen36, qwen38, QWEN36_SETTINGS, QWEN38_SETTINGS } from "./qwen38.js";
export { JSON_VALUE_CLOSERS, jsonCallFormat, PYTHON_JSON_SEPARATORS, type JsonCallSettings } from "./json-call.js";
export { xmlCallFormat, type XmlCallSettings } from "./xml-call.js";
export { QWEN3_THINK, QWEN3_TOKENS, QWEN3_VOCAB_SIZE } from "./qwen3-tokens.js";
export { QWEN35_ADDED_FIRST, QWEN35_TOKENS, QWEN35_VOCAB_SIZE } from "./qwen35-tokens.js";

/** Every registered format by id; a new format is one more entry here. */
export const FORMATS: Readonly<Record<FormatId, ToolCallFormat>> = Object.freeze({ hermes, qwen3coder, qwen35, qwen36, qwen38 });
export const FORMAT_IDS: FormatId[] = Object.keys(FORMATS);
const FORMAT_LIST: readonly ToolCallFormat[] = Object.freeze(Object.values(FORMATS));

/** The format used when none is given or detected. */
export const DEFAULT_FORMAT: ToolCallFormat = hermes;

/** The format with this id; throws a QtcException listing the supported ids otherwise. */
export function getFormat(id: string): ToolCallFormat {
  const format = Object.hasOwn(FORMATS, id) ? FORMATS[id] : undefined;
  if (!format) fail("unknown_format", `unknown format "${id}"; supported: ${FORMAT_IDS.join(", ")}`);
  return format;
}

/**
 * The format object for what a public entry point accepts: a registered id, a format object (used as given,
 * so an unregistered format works too), or undefined for `fallback`. Resolve once; pass the object down.
 */
export function resolveFormat(format: FormatId | ToolCallFormat | undefined, fallback: ToolCallFormat = DEFAULT_FORMAT): ToolCallFormat {
  if (format === undefined) return fallback;
  return typeof format === "string" ? getFormat(format) : format;
}

/**
 * The format a chat template renders tool calls in, like llama.cpp's detection: the registered format all of
 * whose template markers the template spells, the most specific first (Qwen3-Coder templates spell
 * `<function=` and `<parameter=`; Qwen3/Qwen2.5 templates `<tool_call>`). Undefined when none matches.
 */
export function detectFormat(chatTemplate: string | undefined): ToolCallFormat | undefined {
  if (!chatTemplate) return undefined;
  let best: ToolCallFormat | undefined;
  for (const f of FORMAT_LIST) {
    const shown = f.templateMarkers.length > 0 && f.templateMarkers.every((m) => chatTemplate.includes(m));
    if (shown && (!best || f.templateMarkers.length > best.templateMarkers.length)) best = f;
  }
  return best;
}

/**
 * The registered formats the parser's "auto" mode tells apart block by block: those that share the default
 * format's tags (the scanner looks for one pair), the default first.
 */
export const AUTO_FORMATS: readonly ToolCallFormat[] = Object.freeze(
  FORMAT_LIST.filter((f) => f.open.text === DEFAULT_FORMAT.open.text && f.close.text === DEFAULT_FORMAT.close.text),
);

/** Registered formats plus `extra` when it is not one of them: every body spelling a parser may meet. */
export function knownFormats(extra?: ToolCallFormat): readonly ToolCallFormat[] {
  return extra === undefined || FORMAT_LIST.includes(extra) ? FORMAT_LIST : [...FORMAT_LIST, extra];
}

/** The format an output seems written in when no call says: the first whose bare block opens in it, else the default. */
export function formatSeenIn(text: string): ToolCallFormat {
  return FORMAT_LIST.find((f) => f.bareBlock !== undefined && text.includes(f.bareBlock.open)) ?? DEFAULT_FORMAT;
}
