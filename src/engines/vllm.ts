// Owns: the vLLM protocol: qtc's prompt as text on `/v1/completions` with the grammar in
// `structured_outputs.grammar` (vLLM ≥ 0.12 removed `guided_grammar`; docs/features/structured_outputs.md in
// vllm-project/vllm), one JSON reply (`choices[0].text`, `finish_reason`, `usage`).

import type { EngineOptionsLike } from "./xgrammar-protocol.js";
import { connectXgrammarUpstream, type XgrammarProtocol, type XgrammarReply } from "./xgrammar-upstream.js";
import type { UpstreamRuntime } from "./replicas.js";
import { readReplyObject, replyInteger } from "./xgrammar-protocol.js";

export const VLLM_PROTOCOL: XgrammarProtocol = {
  kind: "vllm",
  path: "/v1/completions",
  health: "/health",
  body: (turn, model) => ({
    model,
    prompt: turn.prompt,
    max_tokens: turn.maxTokens,
    seed: turn.seed,
    temperature: turn.temperature,
    top_p: turn.topP,
    top_k: turn.topK,
    stream: false,
    // The format's tags must come back as text: the parser reads them.
    skip_special_tokens: false,
    ...(turn.ebnf === undefined ? {} : { structured_outputs: { grammar: turn.ebnf } }),
    ...(turn.banned.length === 0 ? {} : { logit_bias: Object.fromEntries(turn.banned.map((t) => [String(t), -100])) }),
  }),
  reply(data, where): XgrammarReply {
    const reply = readReplyObject(data, where);
    const choice = Array.isArray(reply.choices) ? (reply.choices[0] as Record<string, unknown> | undefined) : undefined;
    if (!choice || typeof choice.text !== "string") throw readReplyObject.failure(where, "no choices[0].text");
    const usage = (reply.usage ?? {}) as Record<string, unknown>;
    return {
      text: choice.text,
      finishReason: choice.finish_reason === "length" ? "length" : "stop",
      promptTokens: replyInteger(usage.prompt_tokens, where, "usage.prompt_tokens"),
      completionTokens: replyInteger(usage.completion_tokens, where, "usage.completion_tokens"),
    };
  },
};

/** Connect to a vLLM server (OpenAI-compatible, `vllm serve`). */
export function createVllmRuntime(url: string, options: EngineOptionsLike = {}): Promise<UpstreamRuntime> {
  return connectXgrammarUpstream(url, VLLM_PROTOCOL, options);
}
