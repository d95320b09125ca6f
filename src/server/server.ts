// Owns: the HTTP server: a fastify instance with the OpenAI and Anthropic routes, `/health` and `/v1/models`,
// API-key checks on the routed path, one error handler that answers in each API's own error shape (and records
// every 500), and a close that cancels work.

import { timingSafeEqual } from "node:crypto";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { anthropicToGenerate } from "./anthropic-request.js";
import { AnthropicStreamEncoder, anthropicMessage } from "./anthropic-response.js";
import { ApiError, type ApiDialect, errorBody, statusFor, toApiError } from "./api-error.js";
import { checkBodyDepth, checkDepthAfter, type Obj } from "./convert-util.js";
import { resolveServerOptions, type ResolvedServerOptions, type ServerOptions } from "./defaults.js";
import type { GenerateResult } from "../runtime/types.js";
import { type RequestRecord, requestLogFields, ServerMetrics } from "./metrics.js";
import { type DialectEncoder, type GenerationContext, serveGeneration, type StreamInfo, streamErrorFrames } from "./generation.js";
import { openAIToGenerate } from "./openai-request.js";
import { OpenAIStreamEncoder, openAICompletion } from "./openai-response.js";
import { newMeta } from "./response-common.js";
import { responsesToGenerate } from "./responses-request.js";
import { newResponsesMeta, responsesCompletion, ResponsesStreamEncoder } from "./responses-response.js";
import { ANTHROPIC_COUNT_TOKENS_BODY, ANTHROPIC_MESSAGES_BODY, OPENAI_CHAT_BODY, OPENAI_COMPLETIONS_BODY, OPENAI_RESPONSES_BODY } from "./schemas.js";
import { countTokens } from "./budget.js";
import { completionsResponse, completionsStream, completionsToGenerate, newCompletionsMeta } from "./completions.js";
import { applyServerLimits, bodyDeadline, fastifyLimitOptions } from "./limits.js";
import { applyCors } from "./cors.js";
import { SlotPool } from "./slots.js";

/** How long close() waits for cancelled generations to wind down before dropping connections. */
const CLOSE_GRACE_MS = 2000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Build the server (not listening yet): `await app.listen({host, port})`, and `await app.close()` to stop, which
 * cancels generations in flight. Bad input of any kind is answered with 400/401/404/408/413 in the API's own
 * shape; an unexpected error is recorded (onInternalError) and answered with a 500 that names no internals.
 */
export function createServer(options: ServerOptions): FastifyInstance {
  const opts = resolveServerOptions(options);
  const app = Fastify({
    logger: opts.logger,
    // fastify's own request lines are replaced by one line per request with tokens and calls (the onResponse hook).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit,
    return503OnClosing: false, // answered by the onRequest hook below, in the API's own error shape
    forceCloseConnections: true,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    ...fastifyLimitOptions(opts),
  });
  applyServerLimits(app.server, opts);
  const slots = new SlotPool(opts.parallel, opts.queueLimit);
  const onInternalError = opts.onInternalError ?? defaultInternalLog(app, opts.logger !== false);
  const results = new WeakMap<FastifyRequest, GenerateResult>();
  const ctx: GenerationContext = {
    runtime: opts.runtime,
    slots,
    inFlight: new Map(),
    onInternalError,
    pingIntervalMs: opts.pingIntervalMs,
    results,
    defaultToolChoice: opts.defaultToolChoice,
    callPolicy: opts.callPolicy, repeatGuard: opts.repeatGuard,
    budgets: { defaultMaxTokens: opts.defaultMaxTokens, maxTokensLimit: opts.maxTokensLimit, ...(opts.maxTokensCap !== undefined ? { maxTokensCap: opts.maxTokensCap } : {}) },
  };
  const metrics = new ServerMetrics(() => slots.stats());
  const refuse = logRequests(app, metrics, results);

  app.setErrorHandler((error, request, reply) => {
    let apiError = toApiError(error);
    if (apiError.code === "request_too_large") {
      const limit = request.routeOptions.url === COUNT_TOKENS_ROUTE ? opts.countTokensBodyLimit : opts.bodyLimit;
      apiError = new ApiError(413, "request_too_large", `The request body is over this server's limit of ${limit} bytes for ${request.routeOptions.url ?? "this route"}. Send a smaller request, or start qtc serve with a larger --body-limit.`);
    }
    // An ApiError 500 was recorded where it was made (its cause is gone by now); anything else is recorded here.
    if (apiError.status >= 500 && !(error instanceof ApiError)) onInternalError(error);
    // The rest of a body that timed out is still on the socket: close it rather than read on.
    if (apiError.code === "request_timeout") reply.header("connection", "close");
    return refuse(reply, apiError, dialectOf(request));
  });
  app.setNotFoundHandler((request, reply) =>
    refuse(reply, new ApiError(404, "not_found", `There is no ${request.method} ${request.url.split("?")[0]!.slice(0, 200)}. qtc serves POST /v1/chat/completions, POST /v1/completions, POST /v1/responses, POST /v1/messages, POST /v1/messages/count_tokens, GET /v1/models, GET /metrics and GET /health.`), dialectOf(request)),
  );
  // Before the API key: a browser's preflight carries no credentials.
  applyCors(app, opts.cors);
  if (opts.apiKey) app.addHook("onRequest", apiKeyCheck(opts.apiKey, refuse));
  const loading = watchLoading(app, options, opts, ctx, refuse);
  app.addHook("preParsing", bodyDeadline(opts.bodyTimeout));
  // Every field of every body gets a depth limit before anything reads it (echoed fields included).
  app.addHook("preValidation", async (request) => checkBodyDepth(request.body, opts.maxNestingDepth));
  // Closing: cancel queued and running generations, let their handlers answer (a stream ends with an error
  // event, never a normal finish), then fastify drops every connection (forceCloseConnections), so a client
  // holding a socket open cannot delay the exit.
  let closing = false;
  const shuttingDown = () => new ApiError(503, "shutting_down", "The server is shutting down; this answer was cut off and is not complete. Retry on another server, or once it is back.");
  app.addHook("onRequest", async (request, reply) => {
    if (closing) return refuse(reply, shuttingDown(), dialectOf(request));
  });
  app.addHook("preClose", async () => {
    closing = true;
    const reason = shuttingDown();
    slots.rejectWaiting(reason);
    for (const abort of ctx.inFlight.keys()) abort(reason);
    await Promise.race([Promise.allSettled(ctx.inFlight.values()), sleep(CLOSE_GRACE_MS)]);
    await sleep(20);
  });

  app.get("/metrics", async (_request, reply) => reply.type("text/plain; version=0.0.4; charset=utf-8").send(metrics.render()));
  infoRoutes(app, opts, slots, loading);

  app.post("/v1/chat/completions", { schema: { body: OPENAI_CHAT_BODY } }, async (request, reply) => {
    const plan = openAIToGenerate(request.body as Obj, opts);
    checkDepthAfter(request.body, opts.maxNestingDepth);
    const meta = newMeta("chatcmpl-", opts.modelId);
    const encoder: DialectEncoder = {
      dialect: "openai",
      complete: (result) => openAICompletion(result, meta),
      stream: () => {
        const s = new OpenAIStreamEncoder(meta, plan.includeUsage);
        return {
          start: () => s.start().map((data) => ({ data })),
          event: (event) => s.event(event).map((data) => ({ data })),
          error: (error) => streamErrorFrames(error, "openai"),
        };
      },
    };
    return serveGeneration(ctx, request, reply, { request: plan.request, stream: plan.stream, encoder, params: plan.params, stop: plan.stop, budget: plan.budget, choices: plan.choices });
  });

  app.post("/v1/completions", { schema: { body: OPENAI_COMPLETIONS_BODY } }, async (request, reply) => {
    const plan = completionsToGenerate(request.body as Obj, opts);
    checkDepthAfter(request.body, opts.maxNestingDepth);
    const meta = newCompletionsMeta(opts.modelId);
    const encoder: DialectEncoder = {
      dialect: "openai",
      complete: (result) => completionsResponse(result, meta),
      stream: () => ({ ...completionsStream(meta, plan.includeUsage), error: (error) => streamErrorFrames(error, "openai") }),
    };
    return serveGeneration(ctx, request, reply, { request: plan.request, stream: plan.stream, encoder, params: plan.params, stop: plan.stop, rawText: true, budget: plan.budget, choices: plan.choices });
  });

  app.post("/v1/responses", { schema: { body: OPENAI_RESPONSES_BODY } }, async (request, reply) => {
    const plan = responsesToGenerate(request.body as Obj, opts);
    checkDepthAfter(request.body, opts.maxNestingDepth);
    const meta = newResponsesMeta(opts.modelId, plan.echo, plan.namespaces);
    const fitted = (info: StreamInfo) => ({ ...meta, echo: { ...meta.echo, max_output_tokens: info.maxTokens } });
    const encoder: DialectEncoder = {
      dialect: "openai",
      // The echoed max_output_tokens is the budget the turn got (fitted to the context), not the placeholder.
      complete: (result, info) => responsesCompletion(result, fitted(info)),
      stream: (info) => new ResponsesStreamEncoder(fitted(info)),
    };
    return serveGeneration(ctx, request, reply, { request: plan.request, stream: plan.stream, encoder, params: plan.params, budget: plan.budget, notices: plan.notices });
  });

  app.post("/v1/messages", { schema: { body: ANTHROPIC_MESSAGES_BODY } }, async (request, reply) => {
    const plan = anthropicToGenerate(request.body as Obj, opts);
    checkDepthAfter(request.body, opts.maxNestingDepth);
    const meta = newMeta("msg_", opts.modelId);
    const encoder: DialectEncoder = {
      dialect: "anthropic",
      complete: (result) => anthropicMessage(result, meta),
      // message_start reports the prompt's tokens before any is generated: counted first (a tokenization, no decode).
      stream: (info) => {
        const s = new AnthropicStreamEncoder(meta, info.promptTokens ?? 0);
        return { start: () => s.start(), event: (event) => s.event(event), error: (error) => streamErrorFrames(error, "anthropic"), ping: () => s.ping() };
      },
    };
    const budget = { asked: plan.request.maxTokens, param: "max_tokens", dialect: "anthropic" as const };
    return serveGeneration(ctx, request, reply, { request: plan.request, stream: plan.stream, encoder, params: plan.params, stop: plan.stop, budget, countPrompt: plan.stream, notices: plan.notices });
  });

  app.post(COUNT_TOKENS_ROUTE, { schema: { body: ANTHROPIC_COUNT_TOKENS_BODY }, bodyLimit: opts.countTokensBodyLimit }, async (request) => {
    const plan = anthropicToGenerate({ ...(request.body as Obj), max_tokens: opts.maxTokensLimit }, opts);
    checkDepthAfter(request.body, opts.maxNestingDepth);
    const inputTokens = await countTokens(opts.runtime, plan.request, plan.params);
    if (inputTokens === undefined) throw new ApiError(404, "not_found", "This server's runtime cannot count tokens without generating; send the request to /v1/messages and read usage.input_tokens.");
    return { input_tokens: inputTokens };
  });

  return app;
}

const COUNT_TOKENS_ROUTE = "/v1/messages/count_tokens";

/** `/health` (503 while loading) and the model list. */
function infoRoutes(app: FastifyInstance, opts: ResolvedServerOptions, slots: SlotPool, loading: () => boolean): void {
  app.get("/health", async (_request, reply) => {
    if (loading()) return reply.code(503).send({ status: "loading", model: opts.modelId, mode: opts.mode });
    return { status: "ok", model: opts.modelId, mode: opts.mode, slots: slots.stats() };
  });
  app.get("/v1/models", async (request) => (dialectOf(request) === "anthropic" ? anthropicModels(opts) : openAIModels(opts)));
  // One model answers every request whatever `model` it names (as llama-server does), so every name a request may
  // use is found here too: the object carries the name asked for, and `qtc.served` says which model answers it.
  app.get<{ Params: { id: string } }>("/v1/models/:id", async (request) => {
    const id = request.params.id.slice(0, 256);
    const served = { qtc: { served: opts.modelId } };
    if (dialectOf(request) === "anthropic") return { ...anthropicModels(opts).data[0], id, display_name: id, ...served };
    return { ...openAIModels(opts).data[0], id, ...served };
  });
}

/**
 * While the model loads (serve() listens first, `options.ready` pending), every route but /health is a 503
 * `loading`; once loaded, what `ready` gives (runtime, model id, default tool choice) replaces the placeholders.
 * Returns whether it is still loading.
 */
function watchLoading(app: FastifyInstance, options: ServerOptions, opts: ResolvedServerOptions, ctx: GenerationContext, refuse: Refuse): () => boolean {
  let loading = options.ready !== undefined;
  options.ready?.then(
    (loaded) => {
      if (loaded.runtime) opts.runtime = ctx.runtime = loaded.runtime;
      if (loaded.modelId !== undefined && options.modelId === undefined) opts.modelId = loaded.modelId;
      if (loaded.defaultToolChoice) opts.defaultToolChoice = ctx.defaultToolChoice = loaded.defaultToolChoice;
      loading = false;
    },
    () => undefined,
  );
  app.addHook("onRequest", async (request, reply) => {
    if (!loading || request.routeOptions.url === "/health") return;
    return refuse(reply, new ApiError(503, "loading", "The model is still loading. Retry once GET /health answers 200."), dialectOf(request));
  });
  return () => loading;
}

type Refuse = (reply: FastifyReply, error: ApiError, dialect: ApiDialect) => FastifyReply;

/**
 * One log line and one metrics record per request, streams included (onResponse runs once the socket is done).
 * Returns how the server answers a refusal: in the API's shape, remembered so that the log line names the error
 * code and the field.
 */
function logRequests(app: FastifyInstance, metrics: ServerMetrics, results: WeakMap<FastifyRequest, GenerateResult>): Refuse {
  const refusals = new WeakMap<FastifyRequest, ApiError>();
  app.addHook("onResponse", async (request, reply) => {
    const refusal = refusals.get(request);
    const record: RequestRecord = {
      method: request.method,
      route: request.routeOptions.url ?? "unmatched",
      status: reply.raw.statusCode,
      ms: reply.elapsedTime,
      result: results.get(request),
      ...(refusal ? { error: { code: refusal.code, param: refusal.param } } : {}),
    };
    metrics.record(record);
    app.log.info(requestLogFields(record), "request");
  });
  return (reply, error, dialect) => {
    refusals.set(reply.request, error);
    return sendError(reply, error, dialect);
  };
}

/** Where unexpected errors go when the operator gave no `onInternalError`: the logger if on, else stderr. */
function defaultInternalLog(app: FastifyInstance, loggerOn: boolean): (error: unknown) => void {
  if (loggerOn) return (error) => app.log.error({ err: error }, "internal error");
  return (error) => {
    const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
    process.stderr.write(`qtc serve: internal error (answered 500): ${text}\n`);
  };
}

function sendError(reply: FastifyReply, error: ApiError, dialect: ApiDialect): FastifyReply {
  return reply.code(statusFor(error, dialect)).type("application/json; charset=utf-8").send(errorBody(error, dialect));
}

/**
 * Anthropic routes, and any request from an Anthropic client (it sends `anthropic-version`), get Anthropic shapes.
 * Keyed on the route the router matched (decoded), never on the raw URL.
 */
function dialectOf(request: FastifyRequest): ApiDialect {
  if (request.routeOptions.url === "/v1/messages" || request.routeOptions.url === "/v1/messages/count_tokens") return "anthropic";
  return request.headers["anthropic-version"] !== undefined ? "anthropic" : "openai";
}

/** Routes that answer without the API key. */
const OPEN_ROUTES: ReadonlySet<string> = new Set(["/health"]);

/**
 * The API-key hook. It judges the route the router matched (so `/%761/models` is `/v1/models`), and every request
 * that did not match an open route needs the key, unknown routes included: no spelling of a path gets around it.
 */
function apiKeyCheck(apiKey: string, refuse: (reply: FastifyReply, error: ApiError, dialect: ApiDialect) => FastifyReply): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const expected = Buffer.from(apiKey);
  return async (request, reply) => {
    const route = request.routeOptions.url;
    if (route !== undefined && OPEN_ROUTES.has(route)) return;
    const given = keysOf(request);
    if (given.some((key) => sameKey(Buffer.from(key), expected))) return;
    const message = given.length === 0
      ? "No API key. Send it as `Authorization: Bearer KEY` (OpenAI) or `x-api-key: KEY` (Anthropic)."
      : "Incorrect API key.";
    return refuse(reply, new ApiError(401, "unauthorized", message), dialectOf(request));
  };
}

/** The keys a request presents: `Authorization: Bearer KEY` (OpenAI) and `x-api-key: KEY` (Anthropic). */
function keysOf(request: FastifyRequest): string[] {
  const keys: string[] = [];
  const auth = request.headers.authorization;
  if (typeof auth === "string" && /^bearer\s+/i.test(auth)) keys.push(auth.replace(/^bearer\s+/i, "").trim());
  const key = request.headers["x-api-key"];
  if (typeof key === "string") keys.push(key);
  return keys;
}

function sameKey(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function openAIModels(opts: ResolvedServerOptions) {
  return { object: "list", data: [{ id: opts.modelId, object: "model", created: 0, owned_by: "qtc" }] };
}

function anthropicModels(opts: ResolvedServerOptions) {
  const model = { type: "model", id: opts.modelId, display_name: opts.modelId, created_at: new Date(0).toISOString() };
  return { data: [model], has_more: false, first_id: opts.modelId, last_id: opts.modelId };
}
