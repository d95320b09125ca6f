// Owns: the parser's options, its limits and their defaults (one object each).

import { Buffer } from "node:buffer";
import { randomFillSync } from "node:crypto";
import type { FormatId, ToolCallFormat } from "../formats/index.js";
import type { ToolsLike } from "../tools/validators.js";

/** Size limits a block must respect; anything over them is rejected as `too_large`. */
export interface ParseLimits {
  /** Longest string value (UTF-16 code units) in a call's arguments. Default: 1,048,576. */
  maxStringLength: number;
  /** Most items in one array value. Default: 10,000. */
  maxArrayLength: number;
  /** Deepest nesting of objects and arrays in the arguments (the arguments object is depth 1), at most MAX_DEPTH_LIMIT. Default: 32. */
  maxDepth: number;
  /** Largest block, tags included, in UTF-8 bytes. Default: 4,194,304. */
  maxBlockBytes: number;
}

/**
 * How the output starts with respect to reasoning:
 * - `"auto"`: as DESIGN says, text before a lone `</think>` is reasoning. Until a `<think>` or `</think>` is
 *   seen the start of the output is undecided, so a stream holds it back (nothing is emitted) until then or
 *   until `end()`. Best for batch use and when the caller does not know the prompt.
 * - `"open"`: the prompt pre-filled `<think>`: the output starts inside reasoning and streams it at once.
 * - `"closed"`: the output starts as answer text (no think phase, or the prompt closed it); a stray
 *   `</think>` is dropped with a note.
 */
export type ThinkingStart = "auto" | "open" | "closed";

export interface ParserOptions {
  /**
   * The declared tools: a raw list in any accepted shape (OpenAI, Anthropic, bare) or a CompiledTools.
   * Without tools, names are not checked and XML values stay strings. Default: undefined (no tools).
   */
  tools?: ToolsLike;
  /**
   * The tool-call format the model writes (a registered id or a format object); `"auto"` detects it per block
   * among AUTO_FORMATS (`<function=` after the open tag is qwen3coder, `{` is hermes). Default: "auto".
   */
  format?: FormatId | ToolCallFormat | "auto";
  /** See ThinkingStart. Default: "auto". */
  thinking?: ThinkingStart;
  /** Size limits (merged over the defaults). Default: PARSE_LIMITS. */
  limits?: Partial<ParseLimits>;
  /** Makes each call's id; must return a fresh unique string each time. Default: 32 random hex digits (crypto.randomUUID). */
  newId?: () => string;
  /**
   * The output comes from an engine qtc did not constrain (a proxy's upstream: `--upstream-kind openai`), so a
   * call it only quotes is never run: a block in an inline code span, on an indented code line, in a string of a
   * JSON answer, right after a quote mark or under an example intro ("Example of the format:") is kept as answer
   * text; think tags nest inside reasoning; and a call ending an unclosed think block is read as the answer's
   * only when the output was not cut at the token limit, the section nested no think, and the call is not quoted.
   * Local and grammar-held output keeps false: its grammar writes calls at top level. Default: false.
   */
  untrusted?: boolean;
  /**
   * The content's whitespace: `"trimmed"` drops it around the text; `"exact"` keeps the text as written (an answer
   * a constraint holds, whose whitespace the constraint may require), dropping only the whitespace next to call
   * blocks and the template's blank line after `</think>`. Default: "trimmed".
   */
  text?: "trimmed" | "exact";
}

export interface EndOptions {
  /** The generation stopped at the token limit; an unfinished final block is reported as cut off there. Default: false. */
  truncated?: boolean;
}

/** The largest maxDepth accepted: checks below it recurse once per level, and this keeps them far from the stack limit. */
export const MAX_DEPTH_LIMIT = 1000;

export const PARSE_LIMITS: Readonly<ParseLimits> = Object.freeze({
  maxStringLength: 1_048_576,
  maxArrayLength: 10_000,
  maxDepth: 32,
  maxBlockBytes: 4_194_304,
});

/** Random call id: 32 hex digits (128 bits) from the crypto RNG, never derived from the call's content. */
export function randomCallId(): string {
  if (ID_POOL.offset + ID_BYTES > ID_POOL.bytes.length) {
    randomFillSync(ID_POOL.bytes);
    ID_POOL.offset = 0;
  }
  const id = ID_POOL.bytes.toString("hex", ID_POOL.offset, ID_POOL.offset + ID_BYTES);
  ID_POOL.offset += ID_BYTES;
  return id;
}

const ID_BYTES = 16;
// Entropy drawn in 4 KiB batches (like crypto.randomUUID's own cache); each byte is used once.
const ID_POOL = { bytes: Buffer.alloc(4096), offset: 4096 };

export const PARSER_DEFAULTS = Object.freeze({
  format: "auto" as FormatId | "auto",
  thinking: "auto" as ThinkingStart,
  limits: PARSE_LIMITS,
  newId: randomCallId,
  untrusted: false,
  text: "trimmed" as "trimmed" | "exact",
});
