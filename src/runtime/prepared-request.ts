// Owns: which prepared request a turn may use. A request is prepared once (its prompt rendered and tokenized, its
// text constraint read: `Runtime.prepare`), by a server's budget check or by the turn itself; a turn handed one
// uses it only when it was made by the same runtime from the same inputs, so a stale or foreign one is never read.

import type { GenerateRequest, PreparedRequest } from "./types.js";

/** The request fields a prepared request depends on (compared by identity: the server passes the same objects on). */
const INPUTS = ["messages", "tools", "prompt", "constraint", "responseSchema", "thinking", "format", "reasoningEffort", "preserveThinking", "mode"] as const;

/** The prepared requests one runtime made, each with the request it was made from. */
export class PreparedRequests {
  private readonly made = new WeakMap<PreparedRequest, Pick<GenerateRequest, (typeof INPUTS)[number]>>();

  /** Record `prepared` as made from `request`; returns it. */
  remember(prepared: PreparedRequest, request: GenerateRequest): PreparedRequest {
    this.made.set(prepared, request);
    return prepared;
  }

  /** `request.prepared` when this runtime made it from the same inputs, else undefined (the turn prepares anew). */
  of(request: GenerateRequest): PreparedRequest | undefined {
    const prepared = request.prepared;
    const from = prepared && this.made.get(prepared);
    return from && INPUTS.every((k) => from[k] === request[k]) ? prepared : undefined;
  }
}
