// Owns: what every upstream engine (llama-server, an OpenAI-compatible endpoint) does alike as a Runtime: its
// load (requests in flight over the upstream's slots), `generate` as the collected stream, and closing.

import { fail } from "../errors.js";
import type { GenerateOutput } from "../runtime/result.js";
import type { Runtime, RuntimeLoad } from "../runtime/runtime.js";
import { resultOfStream } from "../runtime/turn-request.js";
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
