// Owns: judging one detected block end to end: size and UTF-8 checks, decoding (through the parser's block
// reader), typing XML values, validating, and building the ToolCall or the CallError.

import { Buffer } from "node:buffer";
import type { CompiledTool, CompiledTools } from "../tools/validators.js";
import { skipWs, type DecodeHints } from "./decoded.js";
import type { BlockReader } from "./decoders.js";
import type { ParseLimits } from "./options.js";
import type { CallError, ToolCall } from "./types.js";
import { isWellFormed, nestsDeeper } from "./nesting.js";
import { unknownToolMessage, validateArguments } from "./validate.js";
import { readsLiteral, setOwn, typeXmlValue } from "./values.js";
import { duplicateKeyMessage, findDuplicateKey } from "./duplicate-keys.js";

/** A block as the scanner saw it. */
export interface RawBlock {
  /** Text between the open and close tags; for a bare block (qwen3coder's `<function=…`), its whole text. */
  inner: string;
  /** The block's exact text, tags included (only a prefix when `overflow`). */
  raw: string;
  start: number;
  end: number;
  /** Opened by the format's open tag (false: a bare block). */
  wrapped: boolean;
  /** Its close tag was seen (false: the output ended inside it). */
  closed: boolean;
  /** Larger than maxBlockBytes; the scanner kept only a prefix. */
  overflow: boolean;
  /** Untrusted output only (ParserOptions.untrusted): why the block is quoted text, not a call (QuoteContext). */
  quote?: string;
}

export interface JudgeContext {
  tools?: CompiledTools;
  /** Reads block bodies in the parser's format (or "auto"). */
  reader: BlockReader;
  limits: ParseLimits;
  newId: () => string;
  /** The generation stopped at its token limit (end({truncated: true})). */
  truncatedStream: boolean;
  /** What decoders may ask about the declared tools (built once per parser by toolHints). */
  hints: DecodeHints;
}

/**
 * A name an API can carry when no tools are declared (OpenAI and Anthropic allow letters, digits, `_` and `-`;
 * letters of any script are accepted, as the peers do). A declared name is matched exactly instead.
 */
const CALLABLE_NAME = /^[\p{L}\p{M}\p{N}_-]{1,128}$/u;

/** The hints a parser's decoders get: which arguments a declared tool takes. */
export function toolHints(tools: CompiledTools | undefined): DecodeHints {
  if (!tools) return {};
  return {
    takes(fn, param) {
      const tool = tools.get(fn);
      if (!tool) return undefined;
      return tool.allowsExtra || tool.patterns.length > 0 || tool.properties.has(param);
    },
  };
}

export type Judgement = { ok: true; call: ToolCall; note?: string } | { ok: false; error: CallError; note?: string };

function rejectBlock(block: RawBlock, reason: CallError["reason"], message: string, name?: string, note?: string): Judgement {
  const error: CallError = name === undefined
    ? { reason, message, raw: block.raw, start: block.start, end: block.end }
    : { reason, message, name, raw: block.raw, start: block.start, end: block.end };
  return note ? { ok: false, error, note } : { ok: false, error };
}

export function judgeBlock(block: RawBlock, ctx: JudgeContext): Judgement {
  const reject = (reason: CallError["reason"], message: string, name?: string, note?: string) => rejectBlock(block, reason, message, name, note);
  const { inner } = block;
  const { guessName } = ctx.reader;
  if (block.overflow || (block.raw.length * 3 > ctx.limits.maxBlockBytes && Buffer.byteLength(block.raw) > ctx.limits.maxBlockBytes)) {
    return reject("too_large", `Your tool call is larger than ${ctx.limits.maxBlockBytes} bytes and was not run. Send less in one call.`, guessName(inner.slice(0, 4000).trim()));
  }
  if (inner.includes("\uFFFD")) {
    return reject("invalid_utf8", "Your tool call holds bytes that are not valid UTF-8 (shown as U+FFFD) and was not run. Write it again in plain valid text.", guessName(inner.trim()));
  }
  if (!isWellFormed(inner)) {
    return reject("invalid_utf8", "Your tool call holds a lone UTF-16 surrogate, which is not valid Unicode text, and was not run. Write it again in plain valid text.", guessName(inner.trim()));
  }
  const q = skipWs(inner, 0);
  if (q >= inner.length) {
    return block.closed
      ? reject("empty_block", "Your tool call was empty. Put the call inside the tool-call tags, or answer in text.")
      : reject("truncated", cutMessage(undefined, ctx.truncatedStream));
  }
  const decoded = ctx.reader.decode(inner, q, ctx.limits.maxDepth, ctx.hints);
  if (!decoded.ok) {
    const name = decoded.error.name ?? guessName(inner.trim());
    if (!block.closed) return reject("truncated", cutMessage(name, ctx.truncatedStream), name);
    return reject(decoded.error.reason, decoded.error.message, name);
  }
  const { name } = decoded.value;
  // A JSON escape such as "\ud800" in the name decodes to a lone surrogate (the raw text was checked above).
  if (!isWellFormed(name)) return reject("invalid_utf8", "The tool name in your call holds a lone UTF-16 surrogate (such as \\ud800). Call the tool by its exact name.");
  const note = block.closed ? undefined : `${name} block was not closed; accepted because its body was complete`;
  const tool = ctx.tools?.get(name);
  if (ctx.tools && !tool) return reject("unknown_tool", unknownToolMessage(name, ctx.tools), name, note);
  if (!ctx.tools && !CALLABLE_NAME.test(name)) {
    return reject("bad_shape", `"${name.slice(0, 80)}" cannot be a tool name: use letters, digits, "_" or "-" only (no spaces, dots, quotes or braces). Call the tool by its exact name.`, undefined, note);
  }
  let args = decoded.value.args;
  if (args && tool) {
    const twice = doubleEncodedDuplicate(args, tool);
    if (twice) return reject("duplicate_key", duplicateKeyMessage(name, twice), name, note);
    args = decodeDoubleEncoded(args, tool);
  }
  if (!args) {
    args = {};
    for (const [key, text] of decoded.value.texts ?? []) {
      // Unlisted arguments are rejected below; they are not typed (and so not guessed at).
      const types = tool && (tool.allowsExtra || tool.properties.has(key)) ? tool.typesOf(key) : undefined;
      // A value sits at depth 2 (the arguments object is 1): refuse deeper text before reading it.
      if (readsLiteral(types) && nestsDeeper(text, ctx.limits.maxDepth - 1, true)) {
        return reject("too_large", `Your ${name} call is too large: argument ${JSON.stringify(key)} is nested deeper than ${ctx.limits.maxDepth} levels. Send less in one call.`, name, note);
      }
      // An empty value for an optional argument that cannot be a string means "not given" (docs/parser.md, class 6).
      if (readsLiteral(types) && text.trim() === "" && !tool?.required.includes(key)) continue;
      const twice = readsLiteral(types) ? findDuplicateKey(text) : undefined;
      if (twice) return reject("duplicate_key", duplicateKeyMessage(name, { key: twice.key, at: twice.at ? `${key}.${twice.at}` : key }), name, note);
      setOwn(args, key, typeXmlValue(text, types));
    }
  }
  const verdict = validateArguments(name, args, tool, ctx.limits);
  if (!verdict.ok) return reject(verdict.reason, verdict.message, name, note);
  const call: ToolCall = {
    id: ctx.newId(),
    name,
    arguments: JSON.stringify(args),
    parsedArguments: args,
    format: decoded.format.id,
    raw: block.raw,
    start: block.start,
    end: block.end,
  };
  if (decoded.value.repairs) call.diagnostics = decoded.value.repairs;
  return note ? { ok: true, call, note } : { ok: true, call };
}

/** A key given twice inside an argument that decodeDoubleEncoded would decode (a JSON string holding an object). */
function doubleEncodedDuplicate(args: Record<string, unknown>, tool: CompiledTool): ReturnType<typeof findDuplicateKey> {
  for (const key of Object.keys(args)) {
    const value = args[key];
    if (typeof value !== "string" || !/^\s*[[{]/.test(value)) continue;
    const types = tool.typesOf(key);
    if (types === "any" || types.has("string") || !(types.has("object") || types.has("array"))) continue;
    const twice = findDuplicateKey(value);
    if (twice) return { key: twice.key, at: twice.at ? `${key}.${twice.at}` : key };
  }
  return undefined;
}

/**
 * JSON-body calls: an argument whose schema wants an object or array (never a string) given as a JSON string
 * holding one is decoded once, like `arguments` itself (docs/parser.md, class 6). Copy on write.
 */
function decodeDoubleEncoded(args: Record<string, unknown>, tool: CompiledTool): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(args)) {
    const value = args[key];
    if (typeof value !== "string" || !/^\s*[[{]/.test(value)) continue;
    const types = tool.typesOf(key);
    if (types === "any" || types.has("string") || !(types.has("object") || types.has("array"))) continue;
    const decoded = typeXmlValue(value, types);
    if (decoded !== null && typeof decoded === "object") setOwn((out ??= { ...args }), key, decoded);
  }
  return out ?? args;
}

function cutMessage(name: string | undefined, atTokenLimit: boolean): string {
  const what = name ? `Your ${name} call` : "Your tool call";
  return atTokenLimit
    ? `${what} was cut off at the output token limit before it was complete, so it was not run. Make the call again, with less content if it was long.`
    : `${what} ended before it was complete (no closing tag), so it was not run. Write the whole call again and close it.`;
}
