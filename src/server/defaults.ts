// Owns: the server's options, their documented defaults (one object), and the runtime interface it drives.

import type { GenerateEvent, GenerateRequest, GenerateResult, GenerationMode } from "../runtime/types.js";

/**
 * What the server needs from a runtime. `createRuntime()` returns a superset; tests may inject a fake.
 * `stream()` must honour `signal` (the server aborts it when the client disconnects).
 */
export interface ServerRuntime {
  generate(request: GenerateRequest): Promise<GenerateResult>;
  stream(request: GenerateRequest): AsyncIterable<GenerateEvent>;
  /** Used for `/v1/models` and `/health` when `modelId` is not given. */
  modelInfo?: { name?: string; path?: string };
}

export interface ServerOptions {
  /** The runtime that generates; it should have at least `parallel` sequences. Required. */
  runtime: ServerRuntime;
  /** Model id reported by `/v1/models` and in responses. Default: the runtime's model name, else "qtc". */
  modelId?: string;
  /** Requests generated at once; more wait in a queue. Default: 1. */
  parallel?: number;
  /** Requests that may wait for a slot before new ones get 503/529 "overloaded". Default: 256. */
  queueLimit?: number;
  /** With a key, every `/v1/*` request needs `Authorization: Bearer KEY` or `x-api-key: KEY`. Default: none. */
  apiKey?: string;
  /** Generation mode for every request. Default: "constrained". */
  mode?: GenerationMode;
  /** Largest request body in bytes; bigger ones get 413. Default: 4 MiB. */
  bodyLimit?: number;
  /** `max_tokens` when a request gives none (OpenAI only; Anthropic requires it). Default: 1024. */
  defaultMaxTokens?: number;
  /** Largest `max_tokens` a request may ask for. Default: 32768. */
  maxTokensLimit?: number;
  /**
   * Deepest nesting of objects and arrays in a history tool call's arguments (OpenAI `tool_calls[].function.arguments`,
   * Anthropic `tool_use.input`); deeper ones get 400 before anything renders them. Default: 64.
   */
  maxNestingDepth?: number;
  /** Fastify logger setting (`false`, `true` or pino options). Default: false. */
  logger?: boolean | Record<string, unknown>;
}

/**
 * The defaults of every optional server option and of the `qtc serve` flags (threads, context size and GPU come
 * from RUNTIME_DEFAULTS).
 */
export const SERVER_DEFAULTS = Object.freeze({
  host: "127.0.0.1",
  port: 8080,
  parallel: 1,
  queueLimit: 256,
  mode: "constrained" as GenerationMode,
  bodyLimit: 4 * 1024 * 1024,
  defaultMaxTokens: 1024,
  maxTokensLimit: 32768,
  maxNestingDepth: 64,
  /** Model id when neither `modelId` nor the runtime's model name is known. */
  modelIdFallback: "qtc",
});

/** Options with every default filled in. */
export type ResolvedServerOptions = Required<Omit<ServerOptions, "apiKey" | "modelId">> & {
  apiKey: string | undefined;
  modelId: string;
};

export function resolveServerOptions(options: ServerOptions): ResolvedServerOptions {
  const info = options.runtime.modelInfo;
  const fromInfo = info?.name ?? (info?.path ? basename(String(info.path)) : undefined);
  return {
    runtime: options.runtime,
    modelId: options.modelId ?? fromInfo ?? SERVER_DEFAULTS.modelIdFallback,
    parallel: options.parallel ?? SERVER_DEFAULTS.parallel,
    queueLimit: options.queueLimit ?? SERVER_DEFAULTS.queueLimit,
    apiKey: options.apiKey === "" ? undefined : options.apiKey,
    mode: options.mode ?? SERVER_DEFAULTS.mode,
    bodyLimit: options.bodyLimit ?? SERVER_DEFAULTS.bodyLimit,
    defaultMaxTokens: options.defaultMaxTokens ?? SERVER_DEFAULTS.defaultMaxTokens,
    maxTokensLimit: options.maxTokensLimit ?? SERVER_DEFAULTS.maxTokensLimit,
    maxNestingDepth: options.maxNestingDepth ?? SERVER_DEFAULTS.maxNestingDepth,
    logger: options.logger ?? false,
  };
}

function basename(path: string): string {
  const last = path.split(/[\\/]/).pop() ?? path;
  return last.replace(/\.gguf$/i, "");
}
