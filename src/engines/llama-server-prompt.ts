// Owns: qtc's trust rule on a remote tokenizer: a llama-server's added tokens, read once, and a rendered prompt
// tokenized through its `/tokenize` so that only the template's markers are special tokens (the same split as
// the local runtime's tokenizePrompt: content runs go out with parse_special off, cut inside added-token spellings).

import { fail } from "../errors.js";
import type { PromptSegment } from "../prompt/index.js";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";
import { sortAdded, tokenizePrompt, type AddedToken } from "../runtime/prompt-tokens.js";
import { postJson, upstreamFailure, type UpstreamLimits } from "./upstream-http.js";

/** Qwen3's added tokens: 151,643 (`<|endoftext|>`) to 151,668 (`</think>`). */
const QWEN3_ADDED_FIRST = QWEN3_TOKENS.endOfText.token;
const QWEN3_ADDED_LAST = QWEN3_TOKENS.thinkClose.token;

/** Distinct text runs one prompt may send to /tokenize at once (a bound on the fan-out). */
const MAX_RUNS = 4096;

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
  return sortAdded(added);
}

/** Tokens of plain text runs (parse_special off), asked of the server in parallel. */
async function tokenizeRuns(base: string, runs: readonly string[], limits: UpstreamLimits, signal?: AbortSignal): Promise<number[][]> {
  const one = async (content: string): Promise<number[]> => {
    const reply = (await postJson(`${base}/tokenize`, { content, parse_special: false, add_special: false }, limits, signal)) as { tokens?: unknown };
    const tokens = reply?.tokens;
    if (!Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t))) throw upstreamFailure("upstream_error", `${base}/tokenize: the reply has no token list`);
    return tokens as number[];
  };
  // A few at a time: bounded load on the server (and listeners on the caller's signal).
  const out: number[][] = [];
  for (let i = 0; i < runs.length; i += TOKENIZE_AT_ONCE) out.push(...(await Promise.all(runs.slice(i, i + TOKENIZE_AT_ONCE).map(one))));
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
  const tokens = await tokenizeRuns(base, runs, limits, signal);
  const out: number[] = [];
  for (const t of placeholders) {
    if (t >= 0) out.push(t);
    else for (const token of tokens[-t - 1]!) out.push(token);
  }
  return out;
}
