// Owns: the server's options, their documented defaults (one object), and the runtime interface it drives.

import type { GenerateEvent, GenerateRequest, GenerateResult, GenerationMode, PreparedRequest } from "../runtime/types.js";
import { GrammarCache, type UnsupportedPolicy } from "../grammar/index.js";
import { CALL_POLICIES, CALL_POLICY_DEFAULTS, type CallPolicy } from "../tools/call-policy.js";
import { ValidatorCache } from "../tools/index.js";
import { GENERATE_DEFAULTS } from "../runtime/defaults.js";

/**
 * What the server needs from a runtime. `createRuntime()` returns a superset; tests may inject a fake.
 * `stream()` must honour `signal` (the server aborts it when the client disconnects).
 */
export interface ServerRuntime {
  generate(request: GenerateRequest): Promise<GenerateResult>;
  stream(request: GenerateRequest): AsyncIterable<GenerateEvent>;
  /** Used for `/v1/models` and `/health` when `modelId` is not given. */
  modelInfo?: { name?: string; path?: string };
  /** The context each sequence holds: budgets are fitted to it (see budget.ts). Unknown (absent or 0): not fitted. */
  settings?: { contextSize?: number };
  /** The runtime's tool-call format id (the open tag `open-bias` biases is the format's). Default: hermes. */
  format?: string;
  /** The prompt tokens a request would evaluate: `/v1/messages/count_tokens` and message_start's usage need it. */
  countTokens?(request: Pick<GenerateRequest, "messages" | "tools" | "prompt" | "thinking" | "format">): number;
  /** countTokens in slices that let the event loop run between them; preferred when present. */
  countTokensSliced?(request: Pick<GenerateRequest, "messages" | "tools" | "prompt" | "thinking" | "format">): Promise<number>;
  /** The request prepared once (prompt rendered and tokenized, constraint read); preferred over counting when present. */
  prepare?(request: GenerateRequest): Promise<PreparedRequest>;
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
  /**
   * Tool choice of a request that sends tools and names none. Default: "auto" (the APIs' own default); `serve`
   * picks "required" for a synthetic (random-weight) model, qtc's one rule for them (src/defaults.ts).
   */
  defaultToolChoice?: "auto" | "required";
  /** Largest request body in bytes; bigger ones get 413. Default: 4 MiB. */
  bodyLimit?: number;
  /**
   * Largest body of `POST /v1/messages/count_tokens` (it answers without a slot, so each one is work no queue
   * bounds); bigger ones get 413. Never above `bodyLimit`. Default: 1 MiB.
   */
  countTokensBodyLimit?: number;
  /**
   * `max_tokens` / `max_output_tokens` when a request gives none (OpenAI routes; Anthropic requires it). Default:
   * what the context leaves after the prompt (capped at `maxTokensLimit`), or 1024 when the runtime does not say its
   * context size: agents such as Codex send none and fail a turn that ends `incomplete`.
   */
  defaultMaxTokens?: number;
  /** Largest `max_tokens` a request may ask for. Default: 32768. */
  maxTokensLimit?: number;
  /**
   * The most output tokens one turn may take, whatever a request asks: a larger ask is clamped and the response
   * says so (like llama-server's `-n`). For agents that ask for 32,000 on a small local model. Default: none.
   */
  maxTokensCap?: number;
  /**
   * Deepest nesting of objects and arrays in a history tool call's arguments (OpenAI `tool_calls[].function.arguments`,
   * Anthropic `tool_use.input`); deeper ones get 400 before anything renders them. Default: 64.
   */
  maxNestingDepth?: number;
  /**
   * A tool schema keyword the grammar cannot hold exactly: "validate" enforces a superset and leaves the keyword
   * to the validator (the response's `x-qtc-grammar` says so); "strict" refuses the request naming the tool. The
   * verdict is the same under every tool choice. Default: "validate".
   */
  unsupported?: UnsupportedPolicy;
  /**
   * Call policy for requests that carry tools (see src/tools/call-policy.ts); a request's `x-qtc-call-policy`
   * header overrides it. Default: "auto" (the request's own tool choice).
   */
  callPolicy?: CallPolicy;
  /**
   * The repetition guard of every request (`qtc serve --repeat-guard`; see GenerateRequest.repeatGuard): repeats of
   * a short span that stop a loop, or false (off). Default: 72 (the runtime's).
   */
  repeatGuard?: number | false;
  /** Fastify logger setting (`false`, `true` or pino options). Default: false. */
  logger?: boolean | Record<string, unknown>;
  /**
   * Called with every unexpected error (answered as a generic 500, or cut into a stream as an error event), so no
   * 500 goes unrecorded. Default: the fastify logger when `logger` is on, else one line with the stack on stderr.
   */
  onInternalError?: (error: unknown) => void;
  /** Milliseconds a client has to send a request's headers; then the connection is closed. Default: 10000. */
  headersTimeout?: number;
  /**
   * Milliseconds a request's body has to arrive, counted from the end of its headers; a body still arriving
   * then gets 408 `request_timeout` and the connection is closed. Default: 30000.
   */
  bodyTimeout?: number;
  /** Milliseconds an idle keep-alive connection stays open between requests. Default: 5000. */
  keepAliveTimeout?: number;
  /**
   * Milliseconds a socket may stay silent in both directions before it is closed; 0 turns this off. Off by
   * default because a queued or long non-streamed generation sends nothing until it is done. Default: 0.
   */
  connectionTimeout?: number;
  /** Open connections at most; more are closed as they arrive. Default: 1024. */
  maxConnections?: number;
  /** Requests one keep-alive connection may carry before the server closes it; 0 means no limit. Default: 1000. */
  maxRequestsPerSocket?: number;
  /** Milliseconds a streamed Anthropic answer may stay silent before a `ping` event is sent. Default: 5000. */
  pingIntervalMs?: number;
  /**
   * Origins a browser may call the server from (`qtc serve --cors`): exact origins (`https://app.example`) or
   * `"*"` for any. Preflight requests are answered without the API key; responses carry the CORS headers.
   * Default: none (CORS off; browsers refuse cross-origin answers).
   */
  cors?: readonly string[];
  /**
   * The model is still loading: until this settles, `/health` answers 503 `{"status": "loading"}` and every other
   * route 503 `loading`; what it resolves with (the loaded runtime, the model id, the default tool choice) replaces
   * the options given (`serve()` listens before it loads, so a client can see it load). A rejection keeps the
   * server answering 503. Default: none (ready at once).
   */
  ready?: Promise<Partial<Pick<ServerOptions, "runtime" | "modelId" | "defaultToolChoice">>>;
  /**
   * Where request tools and response schemas are compiled for their 400 checks (bounded); `serve()` passes the
   * runtime's, so each is compiled once. Default: a cache of the server's own.
   */
  validators?: ValidatorCache;
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
  countTokensBodyLimit: 1024 * 1024,
  /** max_tokens of a request that gives none when the runtime does not say its context size. */
  defaultMaxTokens: 1024,
  unsupported: "validate" as UnsupportedPolicy,
  callPolicy: CALL_POLICY_DEFAULTS.policy,
  repeatGuard: GENERATE_DEFAULTS.repeatGuard,
  maxTokensLimit: 32768,
  maxNestingDepth: 64,
  headersTimeout: 10_000,
  bodyTimeout: 30_000,
  keepAliveTimeout: 5000,
  connectionTimeout: 0,
  maxConnections: 1024,
  maxRequestsPerSocket: 1000,
  pingIntervalMs: 5000,
  /** Model id when neither `modelId` nor the runtime's model name is known. */
  modelIdFallback: "qtc",
});

/** Options with every default filled in. */
export type ResolvedServerOptions = Required<Omit<ServerOptions, "apiKey" | "modelId" | "onInternalError" | "defaultMaxTokens" | "maxTokensCap" | "ready">> & {
  /** Undefined: no cap (see ServerOptions.maxTokensCap). */
  maxTokensCap: number | undefined;
  /** Undefined: what the context leaves (see ServerOptions.defaultMaxTokens). */
  defaultMaxTokens: number | undefined;
  /** Where the strict policy's grammar checks are cached (bounded, owned by the server). */
  grammars: GrammarCache;
  apiKey: string | undefined;
  modelId: string;
  onInternalError: ((error: unknown) => void) | undefined;
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
    defaultToolChoice: options.defaultToolChoice ?? "auto",
    bodyLimit: options.bodyLimit ?? SERVER_DEFAULTS.bodyLimit,
    countTokensBodyLimit: Math.min(options.bodyLimit ?? SERVER_DEFAULTS.bodyLimit, positive(options.countTokensBodyLimit, SERVER_DEFAULTS.countTokensBodyLimit, "countTokensBodyLimit")),
    defaultMaxTokens: options.defaultMaxTokens,
    maxTokensCap: options.maxTokensCap,
    unsupported: oneOf(options.unsupported ?? SERVER_DEFAULTS.unsupported, ["validate", "strict"], "unsupported"),
    callPolicy: oneOf(options.callPolicy ?? SERVER_DEFAULTS.callPolicy, CALL_POLICIES, "callPolicy") as CallPolicy,
    repeatGuard: options.repeatGuard ?? SERVER_DEFAULTS.repeatGuard,
    grammars: new GrammarCache(),
    maxTokensLimit: options.maxTokensLimit ?? SERVER_DEFAULTS.maxTokensLimit,
    maxNestingDepth: options.maxNestingDepth ?? SERVER_DEFAULTS.maxNestingDepth,
    logger: options.logger ?? false,
    onInternalError: options.onInternalError,
    headersTimeout: positive(options.headersTimeout, SERVER_DEFAULTS.headersTimeout, "headersTimeout"),
    bodyTimeout: positive(options.bodyTimeout, SERVER_DEFAULTS.bodyTimeout, "bodyTimeout"),
    keepAliveTimeout: positive(options.keepAliveTimeout, SERVER_DEFAULTS.keepAliveTimeout, "keepAliveTimeout"),
    connectionTimeout: atLeastZero(options.connectionTimeout, SERVER_DEFAULTS.connectionTimeout, "connectionTimeout"),
    maxConnections: positive(options.maxConnections, SERVER_DEFAULTS.maxConnections, "maxConnections"),
    maxRequestsPerSocket: atLeastZero(options.maxRequestsPerSocket, SERVER_DEFAULTS.maxRequestsPerSocket, "maxRequestsPerSocket"),
    pingIntervalMs: positive(options.pingIntervalMs, SERVER_DEFAULTS.pingIntervalMs, "pingIntervalMs"),
    validators: options.validators ?? new ValidatorCache(),
    cors: [...(options.cors ?? [])],
  };
}

/** A value from a fixed list (a typo would otherwise silently mean the default). */
function oneOf<T extends string>(value: T, allowed: readonly string[], name: string): T {
  if (!allowed.includes(value)) throw new RangeError(`${name} must be one of ${allowed.join(", ")}, got ${String(value)}`);
  return value;
}

/** A whole number ≥ 1 (a zero here would silently mean "no limit" to Node). */
function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a whole number ≥ 1, got ${v}`);
  return v;
}

function atLeastZero(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a whole number ≥ 0, got ${v}`);
  return v;
}

function basename(path: string): string {
  const last = path.split(/[\\/]/).pop() ?? path;
  return last.replace(/\.gguf$/i, "");
}
