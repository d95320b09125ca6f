// Owns: the engines' public surface and the one place a model spec picks its engine: `llama-server:URL` and
// `openai:URL` (several URLs, comma-separated, are replicas); anything else is a model the local engine loads.

import { fail } from "../errors.js";
import type { FormatId, ToolCallFormat } from "../formats/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { ValidatorCache } from "../tools/index.js";
import { createLlamaServerRuntime } from "./llama-server.js";
import { createOpenAIChatRuntime } from "./openai-chat.js";
import { createReplicaRuntime, type ReplicaOptions, type UpstreamRuntime } from "./replicas.js";
import type { UpstreamLimits } from "./upstream-http.js";

export { createLlamaServerRuntime, upstreamBase, type LlamaServerOptions } from "./llama-server.js";
export { createOpenAIChatRuntime, NO_GRAMMAR_NOTE, type OpenAIChatOptions } from "./openai-chat.js";
export { createReplicaRuntime, REPLICA_DEFAULTS, type ReplicaOptions, type UpstreamRuntime } from "./replicas.js";
export { UPSTREAM_DEFAULTS, type UpstreamLimits } from "./upstream-http.js";

/** The remote engines qtc drives. */
export const ENGINE_KINDS = ["llama-server", "openai"] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

/** A model spec naming a remote engine: its kind and upstream URLs. */
export interface EngineSpec {
  kind: EngineKind;
  urls: string[];
}

/** `llama-server:URL[,URL…]` or `openai:URL[,URL…]` as a spec; undefined for a local model spec. */
export function parseEngineSpec(model: string): EngineSpec | undefined {
  const match = /^(llama-server|openai):(.*)$/s.exec(model);
  if (!match) return undefined;
  const urls = match[2]!.split(",").map((u) => u.trim()).filter((u) => u !== "");
  if (urls.length === 0) fail("invalid_option", `${match[1]}: needs an upstream URL, e.g. ${match[1]}:http://127.0.0.1:8080`);
  return { kind: match[1] as EngineKind, urls };
}

export interface EngineOptions {
  format?: FormatId | ToolCallFormat;
  validators?: ValidatorCache;
  limits?: Partial<UpstreamLimits>;
  /** Health checks of a replica set (several URLs). Default: REPLICA_DEFAULTS. */
  replicas?: ReplicaOptions;
}

/** A Runtime over the spec's upstream(s). */
export async function createEngineRuntime(spec: EngineSpec, options: EngineOptions = {}): Promise<Runtime> {
  const connect = (url: string): Promise<UpstreamRuntime> =>
    spec.kind === "llama-server" ? createLlamaServerRuntime(url, options) : createOpenAIChatRuntime(url, options);
  // One upstream is used directly: each request stands alone, so a failure costs only that request.
  if (spec.urls.length === 1) return connect(spec.urls[0]!);
  return createReplicaRuntime(`${spec.kind}:${spec.urls.join(",")}`, spec.urls, connect, options.replicas);
}
