// Owns: serving one generation request, whichever API: wait for a slot, run the runtime (whole or streamed as SSE),
// cancel it when the client goes away, and always give the slot back.

import type { FastifyReply, FastifyRequest } from "fastify";
import type { GenerateEvent, GenerateRequest, GenerateResult } from "../runtime/types.js";
import { ApiError, type ApiDialect, errorBody, toApiError } from "./api-error.js";
import type { ServerRuntime } from "./defaults.js";
import type { SlotPool } from "./slots.js";
import { abortOnDisconnect, SseWriter } from "./sse.js";

/** How one API encodes a turn. */
export interface DialectEncoder {
  dialect: ApiDialect;
  /** The whole response body of a non-streamed turn. */
  complete(result: GenerateResult): unknown;
  /** A fresh stream encoder for one streamed turn. */
  stream(): StreamEncoder;
}

export interface StreamEncoder {
  start(): SseFrame[];
  event(event: GenerateEvent): SseFrame[];
  /** Frames that report an error after the stream has started. */
  error(error: ApiError): SseFrame[];
}

/** One SSE event: `data` is JSON (or a literal string such as `[DONE]`); `event` names it when the API does. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

export interface GenerationContext {
  runtime: ServerRuntime;
  slots: SlotPool;
  /** Requests in flight: their abort handle and a promise that settles when their handler is done. */
  inFlight: Map<(reason?: unknown) => void, Promise<void>>;
}

export interface GenerationJob {
  request: GenerateRequest;
  stream: boolean;
  encoder: DialectEncoder;
}

/** Serve one turn. Errors before the first byte go to fastify's error handler (status and API shape). */
export async function serveGeneration(ctx: GenerationContext, req: FastifyRequest, reply: FastifyReply, job: GenerationJob): Promise<unknown> {
  const watch = abortOnDisconnect(req.raw, reply.raw);
  let settle!: () => void;
  ctx.inFlight.set(watch.abort, new Promise<void>((resolve) => (settle = resolve)));
  let release: (() => void) | undefined;
  try {
    release = await ctx.slots.acquire(watch.signal);
    const request: GenerateRequest = { ...job.request, signal: watch.signal };
    if (!job.stream) {
      const result = await ctx.runtime.generate(request);
      if (watch.signal.aborted) return aborted(reply, watch.signal);
      return job.encoder.complete(result);
    }
    await streamTurn(ctx.runtime, request, reply, job.encoder, watch.signal);
    return reply;
  } catch (e) {
    if (watch.signal.aborted) return aborted(reply, watch.signal);
    throw e;
  } finally {
    release?.();
    watch.dispose();
    ctx.inFlight.delete(watch.abort);
    settle();
  }
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
 * (a tool schema that does not compile, bad messages) still gets a 400 in the API's error shape.
 */
async function streamTurn(runtime: ServerRuntime, request: GenerateRequest, reply: FastifyReply, encoder: DialectEncoder, signal: AbortSignal): Promise<void> {
  const iterator = runtime.stream(request)[Symbol.asyncIterator]();
  let finished = false;
  try {
    let next = await iterator.next();
    if (signal.aborted) return void giveUp(reply);
    reply.hijack();
    const sse = new SseWriter(reply.raw);
    sse.open();
    const stream = encoder.stream();
    const send = async (frames: SseFrame[]) => {
      for (const frame of frames) await sse.send(frame.data, frame.event);
    };
    await send(stream.start());
    try {
      while (!next.done) {
        await send(stream.event(next.value));
        if (signal.aborted || sse.closed) break;
        next = await iterator.next();
      }
      finished = next.done === true;
    } catch (e) {
      if (!signal.aborted && !sse.closed) {
        const error = toApiError(e);
        if (error.status >= 500) reply.log.error(e);
        await send(stream.error(error));
      }
    }
    if (signal.aborted && signal.reason instanceof ApiError) await send(stream.error(signal.reason));
    sse.end();
  } finally {
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
}

/** The stream `error` frames each API sends once a stream has started. */
export function streamErrorFrames(error: ApiError, dialect: ApiDialect): SseFrame[] {
  const body = errorBody(error, dialect);
  return dialect === "anthropic" ? [{ event: "error", data: body }] : [{ data: body }];
}
