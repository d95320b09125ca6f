// Owns: the parser's decoder table, keyed by the decoder name a format declares (`body.decoder`), and the
// block reader a parser builds once for its format option: which decoder a block goes to, and the messages
// that name another format's form when a block is written in it.

import { fail } from "../errors.js";
import { AUTO_FORMATS, knownFormats, type CallBody, type DecoderName, type ToolCallFormat } from "../formats/index.js";
import { decodeFail, type BodySyntax, type DecodedCall, type DecodeFailure, type DecodeHints } from "./decoded.js";
import { jsonCallSyntax } from "./hermes.js";
import { xmlFunctionSyntax } from "./qwen3coder.js";

type SpellingOf<K extends DecoderName> = Extract<CallBody, { decoder: K }>["spelling"];

/** Every decoder a format can name: a new body syntax is one more entry here (and its decoder). */
const DECODERS: { readonly [K in DecoderName]: (spelling: SpellingOf<K>) => BodySyntax } = Object.freeze({
  "json-call": jsonCallSyntax,
  "xml-function": xmlFunctionSyntax,
});

/** The format's decoder, bound to its spelling; throws `unknown_format` for a decoder name the table lacks. */
function syntaxOf(format: ToolCallFormat): BodySyntax {
  const body = format.body;
  if (!Object.hasOwn(DECODERS, body.decoder)) {
    fail("unknown_format", `format "${format.id}" names decoder "${body.decoder}"; known: ${Object.keys(DECODERS).join(", ")}`);
  }
  // The table's type pairs each decoder name with its spelling; TypeScript cannot follow that through the union.
  const bind = DECODERS[body.decoder] as (spelling: CallBody["spelling"]) => BodySyntax;
  return bind(body.spelling);
}

export type BlockDecoded = { ok: true; value: DecodedCall; format: ToolCallFormat } | { ok: false; error: DecodeFailure };

/** How a parser reads block bodies: one format, or "auto" (one of AUTO_FORMATS, by how the body starts). */
export interface BlockReader {
  /** Decode a body whose first non-space character is at `q`. */
  decode(inner: string, q: number, maxDepth: number, hints?: DecodeHints): BlockDecoded;
  /** The function name a broken block seems to give, in any known form (for messages only). */
  guessName(text: string): string | undefined;
}

interface Bound {
  format: ToolCallFormat;
  syntax: BodySyntax;
}

const bound = (format: ToolCallFormat): Bound => ({ format, syntax: syntaxOf(format) });

function makeReader(format: ToolCallFormat | "auto"): BlockReader {
  const known = knownFormats(format === "auto" ? undefined : format).map(bound);
  const guessName = (text: string) => {
    for (const k of known) {
      const name = k.syntax.guessName(text);
      if (name !== undefined) return name;
    }
    return undefined;
  };
  if (format === "auto") return { decode: autoDecoder(AUTO_FORMATS.map(bound), guessName), guessName };
  const own = bound(format);
  const others = known.filter((k) => k.format.body.decoder !== format.body.decoder);
  const decode = (inner: string, q: number, maxDepth: number, hints?: DecodeHints): BlockDecoded => {
    if (!own.syntax.startsAt(inner, q)) {
      const other = others.find((k) => k.syntax.startsAt(inner, q));
      if (other) return decodeFail("bad_shape", `${own.syntax.instruction}; ${other.syntax.formName} is not used here.`, { name: guessName(inner.trim()) });
    }
    return withFormat(own.syntax.decode(inner, maxDepth, hints), own.format);
  };
  return { decode, guessName };
}

/** "auto": the first candidate whose form the body starts with decodes it. */
function autoDecoder(candidates: readonly Bound[], guessName: (text: string) => string | undefined): BlockReader["decode"] {
  const neither = `A tool call holds either ${candidates.map((c) => c.syntax.summary).join(" or ")}; this one holds neither.`;
  return (inner, q, maxDepth, hints) => {
    const fit = candidates.find((c) => c.syntax.startsAt(inner, q));
    if (!fit) return decodeFail("bad_shape", neither, { name: guessName(inner.trim()) });
    return withFormat(fit.syntax.decode(inner, maxDepth, hints), fit.format);
  };
}

// Readers are immutable and binding one builds regexes: the registered formats' and auto's are built once, at
// load; an unregistered format object (a caller's own) gets a fresh one per parser.
const AUTO_READER = makeReader("auto");
const REGISTERED_READERS: ReadonlyMap<ToolCallFormat, BlockReader> = new Map(knownFormats().map((f) => [f, makeReader(f)]));

/** The block reader for a parser's format option. */
export function blockReader(format: ToolCallFormat | "auto"): BlockReader {
  return format === "auto" ? AUTO_READER : (REGISTERED_READERS.get(format) ?? makeReader(format));
}

function withFormat(decoded: ReturnType<BodySyntax["decode"]>, format: ToolCallFormat): BlockDecoded {
  return decoded.ok ? { ok: true, value: decoded.value, format } : decoded;
}
