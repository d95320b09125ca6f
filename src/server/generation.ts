// Owns: serving one generation request, whichever API: wait for a slot, run the runtime (whole or streamed as SSE),
// cancel it when the client goes away, and always give the slot back.

import { grammarHeader } from "../runtime/result.js";
import type { FastifyReply, FastifyRequest } from "fastify";
import { QtcException } from "../errors.js";
import type { GenerateEvent, GenerateRequest, GenerateResult } from "../runtime/types.js";
import { ApiError, type ApiDialect, errorBody, type ParamHints, toApiError } from "./api-error.js";
import type { ServerRuntime } from "./defaults.js";
import type { SlotPool } from "./slots.js";
import { abortOnDisconnect, type SseFrame, SseWriter } from "./sse.js";
import { asRawText } from "./completions.js";
import { applyStopSequences, cutAnswerJudge } from "./stop-sequences.js";
import { type BudgetAsk, type BudgetDefaults, fitBudget } from "./budget.js";
import { applyCallPolicy, CALL_POLICY_HEADER, finishAsAnswer, finishAsAnswerStream, requestPolicy } from "./call-policy.js";
import type { CallPolicy } from "../tools/call-policy.js";
import { unmetToolChoice } from "../runtime/tool-choice-met.js";
import { choiceRequest, mergeChoices } from "./choices.js";

export type { SseFrame } from "./sse.js";

/** How one API encodes a turn. */
export interface DialectEncoder {
  dialect: ApiDialect;
  /** The whole response body of a non-streamed turn. */
  complete(result: GenerateResult, info: StreamInfo): unknown;
  /** A fresh stream encoder for one streamed turn. */
  stream(info: StreamInfo): StreamEncoder;
}

/** What an encoder is told before the turn starts. */
export interface StreamInfo {
  /** The prompt's tokens, when they were counted. */
  promptTokens?: number;
  /** The turn's token budget, fitted to the context (what the Responses API echoes as max_output_tokens). */
  maxTokens: number;
}

export interface StreamEncoder {
  start(): SseFrame[];
  event(event: GenerateEvent): SseFrame[];
  /** Frames that report an error after the stream has started. */
  error(error: ApiError): SseFrame[];
  /** Keep-alive frames, sent when the stream has been silent for the server's ping interval. Default: none. */
  ping?(): SseFrame[];
}

export interface GenerationContext {
  runtime: ServerRuntime;
  slots: SlotPool;
  /** Requests in flight: their abort handle and a promise that settles when their handler is done. */
  inFlight: Map<(reason?: unknown) => void, Promise<void>>;
  /** Records an unexpected error (one answered as a 500, before or during a stream). */
  onInternalError: (error: unknown) => void;
  /** Milliseconds of silence after which a stream whose encoder pings sends a ping. */
  pingIntervalMs: number;
  /** Each request's result once it has one, for the request log and the metrics. */
  results: WeakMap<FastifyRequest, GenerateResult>;
  /** Tool choice of a request with tools that names none. */
  defaultToolChoice: "auto" | "required";
  /** The server's call policy (a request's header may override it). */
  callPolicy: CallPolicy;
  /** How budgets are fitted to the context. */
  budgets: BudgetDefaults;
  /** The repetition guard of requests that do not set their own (see GenerateRequest.repeatGuard). Default: the runtime's. */
  repeatGuard?: number | false;
}

export interface GenerationJob {
  request: GenerateRequest;
  stream: boolean;
  encoder: DialectEncoder;
  /** Request fields that library errors (a budget too small, a schema the grammar refuses) are reported against. */
  params: ParamHints;
  /** Stop sequences cut the answer text (see stop-sequences.ts). Default: none. */
  stop?: readonly string[];
  /** Answer with the model's raw text, calls included (legacy completions). Default: false. */
  rawText?: boolean;
  /** The output-token ask, fitted to the context before the turn (see budget.ts). Default: the request's maxTokens stands. */
  budget?: BudgetAsk;
  /** Count the prompt's tokens even when no budget needs it (a streamed Anthropic answer reports them first). Default: false. */
  countPrompt?: boolean;
  /** What the converter left out or changed, said in the response (`qtc.notices`, `x-qtc-notices`). Default: none. */
  notices?: readonly string[];
  /** Choices to generate, one after another in the job's slot (see choices.ts); never streamed. Default: 1. */
  choices?: number;
}

/** A job ready to run: its call policy applied, its budget fitted. */
interface ReadyJob extends GenerationJob {
  notices: readonly string[];
  /** The name of the `finish` tool the call policy added, whose call is the answer text. */
  finishTool?: string;
  promptTokens?: number;
}

/** Response header listing what qtc left out or changed for a request (a JSON array of ASCII strings). */
export const NOTICES_HEADER = "x-qtc-notices";

/** Response header (non-streaming answers) saying what constrained the turn: `none`, or `HASH; exact`, or `HASH; validator=…`. */
export const GRAMMAR_HEADER = "x-qtc-grammar";

/**
 * Serve one turn. Errors before the first byte go to fastify's error handler as ApiErrors (status, API shape and
 * the field at fault); unexpected ones are recorded here first, since the ApiError no longer carries them.
 */
export async function serveGeneration(ctx: GenerationContext, req: FastifyRequest, reply: FastifyReply, asked: GenerationJob): Promise<unknown> {
  const job = await readyJob(ctx, req, asked);
  if (job.notices.length) reply.raw.setHeader(NOTICES_HEADER, JSON.stringify(job.notices).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
  const watch = abortOnDisconnect(req.raw, reply.raw);
  let settle!: () => void;
  ctx.inFlight.set(watch.abort, new Promise<void>((resolve) => (settle = resolve)));
  let release: (() => void) | undefined;
  try {
    release = await ctx.slots.acquire(watch.signal);
    const turn = startTurn(ctx, job, watch.signal);
    if (!job.stream) {
      const result = await turn.result();
      ctx.results.set(req, result);
      if (watch.signal.aborted) return aborted(reply, watch.signal);
      const grammar = grammarHeader(result.grammar);
      if (grammar) reply.header(GRAMMAR_HEADER, grammar);
      const bodies = [job.encoder.complete(result, infoOf(job))];
      for (let i = 1; i < (job.choices ?? 1); i++) {
        const more = await startTurn(ctx, { ...job, request: choiceRequest(job.request, i) }, watch.signal).result();
        if (watch.signal.aborted) return aborted(reply, watch.signal);
        bodies.push(job.encoder.complete(more, infoOf(job)));
      }
      return withNotices(bodies.length > 1 ? mergeChoices(bodies) : bodies[0], job.notices);
    }
    await streamTurn(ctx, turn.events, reply, job, watch.signal, (result) => ctx.results.set(req, result));
    return reply;
  } catch (e) {
    if (watch.signal.aborted) return aborted(reply, watch.signal);
    throw answerable(ctx, e, job.params);
  } finally {
    release?.();
    watch.dispose();
    ctx.inFlight.delete(watch.abort);
    settle();
  }
}

/**
 * A job made ready before it waits for a slot: the server's default tool choice, then the call policy (the
 * request's header, else the server's), then its budget fitted to the context (the policy may add a tool, which
 * the prompt's count must include). Refusals are 400s in the API's shape.
 */
async function readyJob(ctx: GenerationContext, req: FastifyRequest, job: GenerationJob): Promise<ReadyJob> {
  const policy = requestPolicy(req.headers[CALL_POLICY_HEADER], ctx.callPolicy);
  const applied = applyCallPolicy(withDefaultToolChoice(job.request, ctx.defaultToolChoice), policy, ctx.runtime.format, job.params.responseSchema);
  const notices = [...(job.notices ?? [])];
  let request = applied.request;
  if (request.repeatGuard === undefined && ctx.repeatGuard !== undefined) request = { ...request, repeatGuard: ctx.repeatGuard };
  let promptTokens: number | undefined;
  if (job.budget || job.countPrompt) {
    const ask = job.budget ?? { asked: request.maxTokens, param: job.params.maxTokens, dialect: "openai" as const };
    const fit = await fitBudget(ctx.runtime, request, ask, ctx.budgets, job.params, job.countPrompt === true);
    if (job.budget) request = { ...request, maxTokens: fit.maxTokens };
    // The turn uses what the count prepared: one served request is rendered and tokenized once.
    if (fit.prepared) request = { ...request, prepared: fit.prepared };
    promptTokens = fit.promptTokens;
    if (fit.notice) notices.push(fit.notice);
  }
  return { ...job, request, notices, ...(applied.finishTool ? { finishTool: applied.finishTool } : {}), ...(promptTokens !== undefined ? { promptTokens } : {}) };
}

function infoOf(job: ReadyJob): StreamInfo {
  return { maxTokens: job.request.maxTokens ?? 0, ...(job.promptTokens !== undefined ? { promptTokens: job.promptTokens } : {}) };
}

/** A request with tools and no tool choice gets the server's default (qtc's rule for random-weight models). */
function withDefaultToolChoice(request: GenerateRequest, choice: "auto" | "required"): GenerateRequest {
  return request.toolChoice === undefined && request.tools && request.tools.length > 0 ? { ...request, toolChoice: choice } : request;
}

/** The notices in a non-streamed body's `qtc` extension object. */
function withNotices(body: unknown, notices: readonly string[]): unknown {
  if (notices.length === 0 || typeof body !== "object" || body === null) return body;
  const b = body as Record<string, unknown>;
  const qtc = typeof b.qtc === "object" && b.qtc !== null ? (b.qtc as Record<string, unknown>) : {};
  const own = Array.isArray(qtc.notices) ? (qtc.notices as string[]) : [];
  return { ...b, qtc: { ...qtc, notices: [...notices, ...own] } };
}

/** A stream's `done` carrying the job's notices too, so the last chunk or event's `qtc` names them all. */
function withJobNotices(event: GenerateEvent, notices: readonly string[]): GenerateEvent {
  if (event.type !== "done" || notices.length === 0) return event;
  return { type: "done", result: { ...event.result, notices: [...notices, ...(event.result.notices ?? [])] } };
}

/**
 * The runtime's turn for a job: its events (raw text and stop sequences applied when asked, a `finish` call
 * turned into answer text) and its whole result. A plain job runs the runtime's own `generate` and `stream`; with
 * stop sequences its signal also fires at the first one.
 */
function startTurn(ctx: GenerationContext, job: ReadyJob, signal: AbortSignal): { events: () => AsyncIterable<GenerateEvent>; result: () => Promise<GenerateResult> } {
  const raw = runtimeTurn(ctx, job, signal);
  // Judged before a `finish` call becomes text: that call is what meets the policy's `required`.
  const turn = {
    events: () => refusingUnmet(raw.events(), job.request),
    result: async () => {
      const result = await raw.result();
      refuseUnmet(result, job.request);
      return result;
    },
  };
  const finish = job.finishTool;
  if (finish === undefined) return turn;
  return { events: () => finishAsAnswerStream(turn.events(), finish), result: async () => finishAsAnswer(await turn.result(), finish) };
}

/** The turn's events, its `done` refused as refuseUnmet refuses a whole result. */
async function* refusingUnmet(events: AsyncIterable<GenerateEvent>, request: GenerateRequest): AsyncGenerator<GenerateEvent, void, void> {
  for await (const event of events) {
    if (event.type === "done") refuseUnmet(event.result, request);
    yield event;
  }
}

/**
 * A turn whose tool choice demands a call and that made no valid one is refused, on every engine alike: 400
 * `budget_too_small` when it ended at the limit having generated nothing (the runtime found no call that fits), else
 * 400 `no_valid_call` naming `tool_choice` (every call was rejected, or none was written). Never a 200 without a call.
 */
function refuseUnmet(result: GenerateResult, request: GenerateRequest): void {
  refuseUndeliverable(result, request);
  const unmet = unmetToolChoice(result, request.toolChoice);
  if (unmet) throw unmet;
}

function runtimeTurn(ctx: GenerationContext, job: ReadyJob, signal: AbortSignal): { events: () => AsyncIterable<GenerateEvent>; result: () => Promise<GenerateResult> } {
  const stops = job.stop ?? [];
  const asked = job.request;
  if (stops.length === 0 && !job.rawText) {
    const request: GenerateRequest = { ...asked, signal };
    return { events: () => ctx.runtime.stream(request), result: () => ctx.runtime.generate(request) };
  }
  const stopper = new AbortController();
  const request: GenerateRequest = { ...asked, signal: stops.length ? AbortSignal.any([signal, stopper.signal]) : signal };
  const events = () => {
    const source = ctx.runtime.stream(request);
    return applyStopSequences(job.rawText ? asRawText(source) : source, stops, () => stopper.abort(), cutAnswerJudge(asked));
  };
  const result = async () => {
    for await (const event of events()) if (event.type === "done") return event.result;
    throw new Error("the runtime's stream ended without a result");
  };
  return { events, result };
}

/**
 * A turn whose tool choice demands a call and that ended at the limit having generated nothing: the runtime found
 * no call that fits the budget (it refuses to open one it cannot close). Every route answers it as it answers a
 * budget below the cheapest call: 400 `budget_too_small` naming the route's budget field, never a 200 without a call.
 */
function refuseUndeliverable(result: GenerateResult, request: GenerateRequest): void {
  const choice = request.toolChoice;
  if (choice !== "required" && typeof choice !== "object") return;
  if (result.toolCalls.length > 0 || result.finishReason !== "length" || result.usage.completionTokens > 0) return;
  throw new QtcException({
    code: "budget_too_small",
    message: `maxTokens ${request.maxTokens} cannot hold the shortest call the tools allow under tool choice ${JSON.stringify(choice)}; raise maxTokens or simplify the tool's schema`,
  });
}

/** An error as the ApiError to answer, recording it when it is unexpected (not an ApiError of the server's own). */
function answerable(ctx: GenerationContext, e: unknown, params: ParamHints): ApiError {
  const error = toApiError(e, params);
  if (error.status >= 500 && !(e instanceof ApiError)) ctx.onInternalError(e);
  return error;
}

/** A cancelled turn: the server's reason (shutting down) goes to the client when it is still there. */
function aborted(reply: FastifyReply, signal: AbortSignal): FastifyReply {
  if (signal.reason instanceof ApiError && !reply.sent && !reply.raw.destroyed) throw signal.reason;
  return giveUp(reply);
}

/** The client is gone: nothing to send. */
function giveUp(reply: FastifyReply): FastifyReply {
  if (!reply.sent) reply.hijack();
  if (!reply.raw.destroyed) reply.raw.destroy();
  return reply;
}

/**
 * Stream one turn. The first runtime event is awaited before the 200 is sent, so input the runtime refuses
 * (a tool schema that does not compile, bad messages) still gets a 400 in the API's error shape. Once the signal
 * fires, no further runtime event is encoded: the runtime ends an aborted turn with a `done` of its own, and
 * encoding it would tell the client a cut-off answer was complete. The server's reason (shutting down) is sent
 * as the stream's last event instead.
 */
async function streamTurn(
  ctx: GenerationContext,
  events: () => AsyncIterable<GenerateEvent>,
  reply: FastifyReply,
  job: ReadyJob,
  signal: AbortSignal,
  onResult: (result: GenerateResult) => void,
): Promise<void> {
  const iterator = events()[Symbol.asyncIterator]();
  let finished = false;
  let keepAlive: NodeJS.Timeout | undefined;
  try {
    // Events a client sees nothing of (a rejected call) are held until one it sees, so a turn that ends before any
    // visible event is judged before the stream opens (a refusal is a 400, not a stream): refusingUnmet throws then.
    const unseen: GenerateEvent[] = [];
    let next = await iterator.next();
    while (!next.done && next.value.type === "error" && !signal.aborted) {
      unseen.push(next.value);
      next = await iterator.next();
    }
    if (signal.aborted) return void giveUp(reply);
    reply.hijack();
    const sse = new SseWriter(reply.raw);
    sse.open();
    const stream = job.encoder.stream(infoOf(job));
    let sent = 0;
    const send = async (frames: SseFrame[]) => {
      sent += frames.length;
      for (const frame of frames) await sse.send(frame.data, frame.event);
    };
    await send(stream.start());
    keepAlive = pinger(stream, send, ctx.pingIntervalMs, () => sent);
    for (const event of unseen) await send(stream.event(event));
    try {
      while (!next.done && !signal.aborted && !sse.closed) {
        if (next.value.type === "done") onResult(next.value.result);
        await send(stream.event(withJobNotices(next.value, job.notices)));
        if (signal.aborted || sse.closed) break;
        next = await iterator.next();
      }
      finished = next.done === true;
    } catch (e) {
      if (!signal.aborted && !sse.closed) await send(stream.error(answerable(ctx, e, job.params)));
    }
    if (signal.aborted && signal.reason instanceof ApiError) await send(stream.error(signal.reason));
    sse.end();
  } finally {
    clearInterval(keepAlive);
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
}

/** A timer that pings a stream (when its encoder can) after each interval in which nothing else was sent. */
function pinger(stream: StreamEncoder, send: (frames: SseFrame[]) => Promise<void>, intervalMs: number, sentSoFar: () => number): NodeJS.Timeout | undefined {
  if (!stream.ping) return undefined;
  let seen = sentSoFar();
  const timer = setInterval(() => {
    if (sentSoFar() === seen) void send(stream.ping!());
    seen = sentSoFar();
  }, intervalMs);
  timer.unref();
  return timer;
}

/** The stream `error` frames each API sends once a stream has started. */
export function streamErrorFrames(error: ApiError, dialect: ApiDialect): SseFrame[] {
  const body = errorBody(error, dialect);
  return dialect === "anthropic" ? [{ event: "error", data: body }] : [{ data: body }];
}
