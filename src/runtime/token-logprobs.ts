// Owns: each output token's log-probability and the most likely alternatives at its position (OpenAI's
// `logprobs`), read after the turn by one replay of its tokens on its sequence, under the model's own distribution:
// the softmax of its logits at temperature 1, before the constraint, the caller's biases and top-k/top-p.

import type { LlamaContextSequence, Token } from "node-llama-cpp";

/** Most alternatives a request may ask for per token (OpenAI's bound on top_logprobs). */
export const MAX_TOP_LOGPROBS = 20;

/** One token with its log-probability. `bytes`: the UTF-8 of its text (a token holding part of a character shows U+FFFD). */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

/** An output token's log-probability and the `top` most likely tokens at its position, most likely first. */
export interface OutputTokenLogprob extends TokenLogprob {
  top: TokenLogprob[];
}

/** The log of a probability, finite (a token the model gives no mass at all is -9999, as llama-server reports). */
function logOf(p: number): number {
  return p > 0 ? Math.log(p) : -9999;
}

function entry(texts: readonly string[], token: number, p: number): TokenLogprob {
  const text = texts[token] ?? "";
  return { token: text, logprob: logOf(p), bytes: [...Buffer.from(text, "utf8")] };
}

/** The `n` most likely tokens of a distribution, most likely first (one pass; n is at most 20). */
function topOf(probabilities: ReadonlyMap<number, number>, n: number): Array<[number, number]> {
  const top: Array<[number, number]> = [];
  if (n <= 0) return top;
  for (const [token, p] of probabilities) {
    if (top.length === n && p <= top[n - 1]![1]) continue;
    let i = top.length < n ? top.length : n - 1;
    top[i] = [token, p];
    while (i > 0 && top[i - 1]![1] < top[i]![1]) {
      [top[i - 1], top[i]] = [top[i]!, top[i - 1]!];
      i--;
    }
  }
  return top;
}

/**
 * Replay the turn on its sequence (the cache from the prompt's last token on is evaluated again, one batch pass; the
 * turn's timings are already taken) and read each output token's distribution. Costs one full distribution per
 * token (node-llama-cpp hands it over whole). The sequence then holds the prompt and the turn's tokens.
 */
export async function tokenLogprobs(
  sequence: LlamaContextSequence,
  promptTokens: readonly number[],
  tokens: readonly number[],
  top: number,
  texts: readonly string[],
): Promise<OutputTokenLogprob[]> {
  if (tokens.length === 0 || promptTokens.length === 0) return [];
  const from = promptTokens.length - 1;
  await sequence.eraseContextTokenRanges([{ start: from, end: Math.max(from, sequence.nextTokenIndex) }]);
  // Item k is the token before the turn's token k: its logits give the distribution token k came from.
  const items: number[] = [promptTokens[from]!, ...tokens.slice(0, -1)];
  const options = { temperature: 1, topK: 0, topP: 1, minP: 0 };
  const out = await sequence.controlledEvaluate(items.map((token) => [token as Token, { generateNext: { probabilities: true, options } }]));
  return tokens.map((token, k) => {
    const probabilities = out[k]?.next?.probabilities ?? new Map<number, number>();
    return { ...entry(texts, token, probabilities.get(token) ?? 0), top: topOf(probabilities, top).map(([t, p]) => entry(texts, t, p)) };
  });
}
