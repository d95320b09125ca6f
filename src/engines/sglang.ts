// Owns: the SGLang protocol: qtc's prompt as text on the native `/generate` endpoint with the grammar in
// `sampling_params.ebnf` (docs.sglang.io basic_usage/sampling_params; io_struct.py GenerateReqInput), one JSON
// reply (`text`, `meta_info.finish_reason.type`, `meta_info.prompt_tokens` / `completion_tokens`).

import type { EngineOptionsLike } from "./xgrammar-protocol.js";
import { readReplyObject, replyInteger } from "./xgrammar-protocol.js";
import { connectXgrammarUpstream, type XgrammarProtocol, type XgrammarReply } from "./xgrammar-upstream.js";
import type { UpstreamRuntime } from "./replicas.js";

export const SGLANG_PROTOCOL: XgrammarProtocol = {
  kind: "sglang",
  path: "/generate",
  health: "/health",
  body: (turn) => ({
    text: turn.prompt,
    stream: false,
    sampling_params: {
      max_new_tokens: turn.maxTokens,
      temperature: turn.temperature,
      top_p: turn.topP,
      top_k: turn.topK,
      sampling_seed: turn.seed,
      // The format's tags must come back as text: the parser reads them.
      skip_special_tokens: false,
      ...(turn.ebnf === undefined ? {} : { ebnf: turn.ebnf }),
      ...(turn.banned.length === 0 ? {} : { logit_bias: Object.fromEntries(turn.banned.map((t) => [String(t), -100])) }),
    },
  }),
  reply(data, where): XgrammarReply {
    const reply = readReplyObject(data, where);
    if (typeof reply.text !== "string") throw readReplyObject.failure(where, "no text");
    const meta = (reply.meta_info ?? {}) as Record<string, unknown>;
    const finish = (meta.finish_reason ?? {}) as Record<string, unknown>;
    return {
      text: reply.text,
      finishReason: finish.type === "length" ? "length" : "stop",
      promptTokens: replyInteger(meta.prompt_tokens, where, "meta_info.prompt_tokens"),
      completionTokens: replyInteger(meta.completion_tokens, where, "meta_info.completion_tokens"),
    };
  },
};

/** Connect to an SGLang server (`python -m sglang.launch_server`). */
export function createSglangRuntime(url: string, options: EngineOptionsLike = {}): Promise<UpstreamRuntime> {
  return connectXgrammarUpstream(url, SGLANG_PROTOCOL, options);
}
