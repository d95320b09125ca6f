// Owns: the engines' public surface and the one place a model spec picks its engine (createRuntime):
// `llama-server:URL`, `vllm:URL`, `sglang:URL` and `openai:URL` (several URLs, comma-separated, are replicas) are remote engines, listed in
// REMOTE_ENGINES; anything else is a model the local engine (./local.ts, node-llama-cpp in-process) loads.

import { fail } from "../errors.js";
import type { FormatId, ToolCallFormat } from "../formats/index.js";
import type { Runtime, RuntimeOptions } from "../runtime/runtime.js";
import type { ValidatorCache } from "../tools/index.js";
import { createLlamaServerRuntime } from "./llama-server.js";
import { createLocalEngineRuntime } from "./local.js";
import { createOpenAIChatRuntime } from "./openai-chat.js";
import { createSglangRuntime } from "./sglang.js";
import { createVllmRuntime } from "./vllm.js";
import { createReplicaRuntime, type ReplicaOptions, type UpstreamRuntime } from "./replicas.js";
import type { UpstreamLimits } from "./upstream-http.js";

export { createLlamaServerRuntime, upstreamBase, type LlamaServerOptions } from "./llama-server.js";
export { createOpenAIChatRuntime, NO_GRAMMAR_NOTE, type OpenAIChatOptions } from "./openai-chat.js";
export { createReplicaRuntime, REPLICA_DEFAULTS, type ReplicaOptions, type UpstreamRuntime } from "./replicas.js";
export { UPSTREAM_DEFAULTS, type UpstreamLimits } from "./upstream-http.js";
export { LOCAL_ENGINE_KIND } from "./local.js";
export { UNCONFIRMED_NOTE, type XgrammarEngineOptions } from "./xgrammar-upstream.js";

/** How a remote engine connects to one upstream URL. */
export type ConnectUpstream = (url: string, options: EngineOptions) => Promise<UpstreamRuntime>;

/**
 * The remote engines qtc drives, keyed by the prefix of their model spec (`<kind>:URL`). A new engine (vLLM,
 * SGLang) is one entry here: its kind and how it connects to one URL; replicas, the spec syntax, `qtc serve
 * --upstream-kind` and createRuntime follow from this table.
 */
const REMOTE_ENGINES = {
  "llama-server": createLlamaServerRuntime,
  openai: createOpenAIChatRuntime,
  vllm: createVllmRuntime,
  sglang: createSglangRuntime,
} as const satisfies Record<string, ConnectUpstream>;

export type EngineKind = keyof typeof REMOTE_ENGINES;
/** The remote engines qtc drives. */
export const ENGINE_KINDS = Object.freeze(Object.keys(REMOTE_ENGINES) as EngineKind[]);

/** A model spec naming a remote engine: its kind and upstream URLs. */
export interface EngineSpec {
  kind: EngineKind;
  urls: string[];
}

const isEngineKind = (kind: string): kind is EngineKind => Object.hasOwn(REMOTE_ENGINES, kind);

/** `<kind>:URL[,URL…]` for a remote engine's kind (`llama-server:`, `openai:`) as a spec; undefined for a local model spec. */
export function parseEngineSpec(model: string): EngineSpec | undefined {
  const colon = model.indexOf(":");
  const kind = model.slice(0, Math.max(colon, 0));
  if (!isEngineKind(kind)) return undefined;
  const urls = model.slice(colon + 1).split(",").map((u) => u.trim()).filter((u) => u !== "");
  if (urls.length === 0) fail("invalid_option", `${kind}: needs an upstream URL, e.g. ${kind}:http://127.0.0.1:8080`);
  return { kind, urls };
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
  const connect = (url: string): Promise<UpstreamRuntime> => REMOTE_ENGINES[spec.kind](url, options);
  // One upstream is used directly: each request stands alone, so a failure costs only that request.
  if (spec.urls.length === 1) return connect(spec.urls[0]!);
  return createReplicaRuntime(`${spec.kind}:${spec.urls.join(",")}`, spec.urls, connect, options.replicas);
}

/**
 * Choose the engine the model spec names and build its Runtime: a remote engine for `<kind>:URL[,URL…]` (qtc
 * still renders, constrains and judges; generation runs upstream), else the local engine loading the model here.
 * `upstreamLimits` bound each exchange with a remote engine (default: UPSTREAM_DEFAULTS); a local model ignores them.
 */
export async function createRuntime(options: RuntimeOptions & { upstreamLimits?: Partial<UpstreamLimits> } = {}): Promise<Runtime> {
  const engine = parseEngineSpec(options.model ?? "");
  if (engine) return createEngineRuntime(engine, { format: options.format, validators: options.validators, ...(options.upstreamLimits ? { limits: options.upstreamLimits } : {}) });
  return createLocalEngineRuntime(options);
}
