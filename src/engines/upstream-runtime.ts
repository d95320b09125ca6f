// Owns: what every upstream engine (llama-server, an OpenAI-compatible endpoint) does alike as a Runtime: its
// load (requests in flight over the upstream's slots), `generate` as the collected stream, closing, and the
// tool choice enforced on what the upstream returned (an upstream's output is judged, never trusted).

import { fail } from "../errors.js";
import type { ToolChoice } from "../tools/types.js";
import { upstreamFailure } from "./upstream-http.js";
import type { GenerateOutput } from "../runtime/result.js";
import type { Runtime, RuntimeLoad } from "../runtime/runtime.js";
import { resultOfStream } from "../runtime/turn-request.js";
import { unmetToolChoice } from "../runtime/tool-choice-met.js";
import type { GenerateEvent, GenerateRequest } from "../runtime/types.js";

export abstract class UpstreamRuntimeBase {
  abstract readonly settings: Runtime["settings"];
  /** Requests in flight: the ones past the upstream's slots are waiting there. */
  protected busy = 0;
  private closed = false;

  abstract stream(request: GenerateRequest): AsyncGenerator<GenerateEvent, void, void>;

  get load(): RuntimeLoad {
    const sequences = this.settings.sequences;
    return { sequences, busy: Math.min(this.busy, sequences), waiting: Math.max(0, this.busy - sequences) };
  }

  generate(request: GenerateRequest): Promise<GenerateOutput> {
    return resultOfStream(this.stream(request));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  protected checkOpen(): void {
    if (this.closed) fail("invalid_option", "the runtime is closed");
  }
}

/**
 * The turn's events with its tool choice enforced on what the upstream returned: under `parallel: false` a second
 * call is an upstream_error before it reaches the client; under `required` (or a named tool) a turn that ends
 * without a valid call (to that tool) is `no_valid_call` (see unmetToolChoice), not a 200 without one. An aborted
 * turn is let through.
 */
export async function* enforceToolChoice(
  events: AsyncIterable<GenerateEvent>,
  choice: { toolChoice: ToolChoice; parallel: boolean },
  where: string,
): AsyncGenerator<GenerateEvent, void, void> {
  let calls = 0;
  for await (const event of events) {
    if (event.type === "tool-call-start" && ++calls > 1 && !choice.parallel) {
      throw upstreamFailure("upstream_error", `${where} returned a second tool call under parallel_tool_calls false; the turn is refused`);
    }
    if (event.type === "done" && event.result.finishReason !== "aborted") {
      const made = event.result.toolCalls;
      if (!choice.parallel && made.length > 1) throw upstreamFailure("upstream_error", `${where} returned ${made.length} tool calls under parallel_tool_calls false; the turn is refused`);
      // The model's failure, not the engine's: every engine answers it alike (no_valid_call, issue 52).
      const unmet = unmetToolChoice(event.result, choice.toolChoice);
      if (unmet) throw unmet;
    }
    yield event;
  }
}
