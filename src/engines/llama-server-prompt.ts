// Owns: qtc's trust rule on a remote tokenizer: a llama-server's added tokens, read once, and a rendered prompt
// tokenized through its `/tokenize` so that only the template's markers are special tokens (the same split as
// the local runtime's tokenizePrompt: content runs go out with parse_special off, cut inside added-token spellings),
// a few requests per prompt (runs batched between separator tokens), each reply bounded and checked as it comes.

import { fail } from "../errors.js";
import type { PromptSegment } from "../prompt/index.js";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";
import { sortAdded, type AddedToken } from "../engine/token-tables.js";
import { tokenizePrompt } from "../model/prompt-tokens.js";
import { postJson, upstreamFailure, type UpstreamLimits } from "./upstream-http.js";
import { upstreamInteger } from "./upstream-values.js";

/** Qwen3's added tokens: 151,643 (`<|endoftext|>`) to 151,668 (`</think>`). */
const QWEN3_ADDED_FIRST = QWEN3_TOKENS.endOfText.token;
const QWEN3_ADDED_LAST = QWEN3_TOKENS.thinkClose.token;

/** Distinct text runs one prompt may send to /tokenize at once (a bound on the fan-out). */
const MAX_RUNS = 4096;

/**
 * Runs are sent in batches (llama-server tokenizes each string of a `content` array on its own and passes numbers
 * through as token ids): `[run, SEP, run, SEP, run]` with `<|endoftext|>` as SEP, a CONTROL token that text
 * tokenized with parse_special off never yields (and runs are cut inside every added-token spelling anyway), so
 * the reply splits back into runs at exactly runs - 1 separators; any other count is an upstream_error.
 */
const SEPARATOR = QWEN3_TOKENS.endOfText.token;
/** Content bytes of one batch. */
const BATCH_BYTES = 256 * 1024;
/** Runs of one batch. */
const BATCH_RUNS = 1024;
/** Bytes a token takes at most in a `/tokenize` reply (a 10-digit id and a comma), for its size bound. */
const REPLY_BYTES_PER_TOKEN = 12;

/** Added-token spellings as llama.cpp prints Qwen3's: `<…>`, no whitespace, at most 64 characters. */
const ADDED_SPELLING = /^<[^\s<>]{1,62}>$/u;

/**
 * The server's added tokens (their spellings as the server prints them), checked to be Qwen3's: qtc's formats
 * name Qwen3 token ids, so a server with another vocabulary gets `unsupported_model`.
 */
export async function readAddedTokens(base: string, limits: UpstreamLimits): Promise<AddedToken[]> {
  const ids = Array.from({ length: QWEN3_ADDED_LAST - QWEN3_ADDED_FIRST + 1 }, (_, i) => QWEN3_ADDED_FIRST + i);
  const reply = (await postJson(`${base}/tokenize`, { content: ids, with_pieces: true }, limits)) as { tokens?: unknown };
  const pieces = Array.isArray(reply?.tokens) ? reply.tokens : [];
  const added: AddedToken[] = [];
  for (const item of pieces) {
    const { id, piece } = (item ?? {}) as { id?: unknown; piece?: unknown };
    if (typeof id === "number" && typeof piece === "string") added.push({ token: id, text: piece });
  }
  const open = added.find((t) => t.token === QWEN3_TOKENS.toolCallOpen.token);
  if (added.length !== ids.length || open?.text !== QWEN3_TOKENS.toolCallOpen.text) {
    throw upstreamFailure("unsupported_model", `${base}: the served model does not have Qwen3's vocabulary (token ${QWEN3_TOKENS.toolCallOpen.token} is not "<tool_call>"); qtc's formats need a Qwen3 GGUF`);
  }
  checkAddedTokens(base, ids, added);
  return sortAdded(added);
}

/**
 * The spellings an upstream gave for Qwen3's added tokens, checked before the prompt splitter trusts them: the
 * ids asked for, each once; every spelling `<…>` (one like `a` would cut every content run at each letter); the
 * tokens qtc's formats name spelled as Qwen3 spells them.
 */
function checkAddedTokens(base: string, ids: readonly number[], added: readonly AddedToken[]): void {
  const known = new Map<number, string>(Object.values(QWEN3_TOKENS).map((t) => [t.token, t.text]));
  const seen = new Set<number>();
  for (const { token, text } of added) {
    const expected = known.get(token);
    if (!ids.includes(token) || seen.has(token) || !ADDED_SPELLING.test(text) || (expected !== undefined && text !== expected)) {
      throw upstreamFailure("unsupported_model", `${base}/tokenize spells added token ${token} as ${JSON.stringify(text.slice(0, 40))}, not as Qwen3 does; qtc's formats need a Qwen3 GGUF`);
    }
    seen.add(token);
  }
}

/** Runs grouped into batches of at most BATCH_BYTES of content and BATCH_RUNS runs (a long run is a batch alone). */
function batchesOf(runs: readonly string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const run of runs) {
    const size = Buffer.byteLength(run, "utf8");
    if (current.length > 0 && (bytes + size > BATCH_BYTES || current.length >= BATCH_RUNS)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(run);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Tokens of plain text runs (parse_special off), a batch per request, a few requests at a time. Each reply is
 * bounded by what its content can yield (a token covers at least one byte), and the tokens so far are checked
 * against `most` as each reply arrives: an upstream answering millions of tokens is stopped at the first reply.
 */
async function tokenizeRuns(base: string, runs: readonly string[], limits: UpstreamLimits, signal: AbortSignal | undefined, most: number | undefined): Promise<number[][]> {
  let total = 0;
  const one = async (batch: readonly string[]): Promise<number[][]> => {
    const content: (string | number)[] = [];
    let bytes = 0;
    batch.forEach((run, i) => {
      if (i > 0) content.push(SEPARATOR);
      content.push(run);
      bytes += Buffer.byteLength(run, "utf8");
    });
    const maxReplyBytes = Math.min(limits.maxReplyBytes, 64 + REPLY_BYTES_PER_TOKEN * (bytes + batch.length));
    const reply = (await postJson(`${base}/tokenize`, { content, parse_special: false, add_special: false }, { ...limits, maxReplyBytes }, signal)) as { tokens?: unknown };
    const tokens = reply?.tokens;
    if (!Array.isArray(tokens)) throw upstreamFailure("upstream_error", `${base}/tokenize: the reply has no token list`);
    const out: number[][] = [[]];
    for (const t of tokens) {
      upstreamInteger(t, `${base}/tokenize`, "tokens[]");
      if (t === SEPARATOR) out.push([]);
      else out[out.length - 1]!.push(t as number);
    }
    if (out.length !== batch.length) throw upstreamFailure("upstream_error", `${base}/tokenize: the reply splits into ${out.length} runs, not the ${batch.length} sent`);
    total += tokens.length - (batch.length - 1);
    if (most !== undefined && total > most) fail("invalid_option", `the prompt is over ${total} tokens, more than the ${most} the upstream's context leaves after maxTokens; send a shorter conversation or a smaller maxTokens`);
    return out;
  };
  // A few at a time: bounded load on the server (and listeners on the caller's signal).
  const batches = batchesOf(runs);
  const out: number[][] = [];
  for (let i = 0; i < batches.length; i += TOKENIZE_AT_ONCE) {
    for (const runsOf of await Promise.all(batches.slice(i, i + TOKENIZE_AT_ONCE).map(one))) for (const run of runsOf) out.push(run);
  }
  return out;
}

/** /tokenize requests one prompt has in flight at most (llama-server has few HTTP threads: slots + 4). */
const TOKENIZE_AT_ONCE = 2;

/**
 * The prompt's tokens, split exactly as the local runtime splits them: tokenizePrompt runs once with a
 * tokenizer that records each plain-text piece (and returns a placeholder), the pieces go to the server, and
 * the placeholders are replaced by their tokens.
 */
export async function tokenizeRemotePrompt(
  base: string,
  segments: readonly PromptSegment[],
  added: readonly AddedToken[],
  limits: UpstreamLimits,
  signal?: AbortSignal,
  /** Most prompt tokens the context leaves; more fail with invalid_option as soon as a reply shows it. Default: no bound. */
  most?: number,
): Promise<number[]> {
  const runs: string[] = [];
  const index = new Map<string, number>();
  const placeholders = tokenizePrompt(segments, {
    added,
    tokenize: (text) => {
      let at = index.get(text);
      if (at === undefined) {
        at = runs.length;
        runs.push(text);
        index.set(text, at);
      }
      return [-(at + 1)];
    },
  });
  if (runs.length > MAX_RUNS) fail("invalid_messages", `the prompt splits into ${runs.length} text runs, more than ${MAX_RUNS}; send fewer messages`);
  const tokens = await tokenizeRuns(base, runs, limits, signal, most);
  const out: number[] = [];
  for (const t of placeholders) {
    if (t >= 0) out.push(t);
    else for (const token of tokens[-t - 1]!) out.push(token);
  }
  return out;
}
