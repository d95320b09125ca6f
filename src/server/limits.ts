// Owns: what a slow or greedy client may hold: the Node/fastify timeouts and connection caps built from the
// server options, and the body deadline that answers a body still arriving with an API-shaped 408.

import type { Server, ServerResponse } from "node:http";
import { PassThrough, type Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "./api-error.js";
import type { ResolvedServerOptions } from "./defaults.js";

type LimitOptions = Pick<ResolvedServerOptions, "headersTimeout" | "bodyTimeout" | "keepAliveTimeout" | "connectionTimeout" | "maxRequestsPerSocket">;

/**
 * Fastify options for the limits. Node's own `requestTimeout` (headers and body together, answered with a bare
 * 408) is only a backstop behind the body deadline, so it allows both timeouts plus a second. Node checks its
 * timeouts every `connectionsCheckingInterval` (30 s unless told), so that follows the headers timeout.
 */
export function fastifyLimitOptions(opts: LimitOptions) {
  const backstop = opts.headersTimeout + opts.bodyTimeout + 1000;
  return {
    requestTimeout: backstop,
    keepAliveTimeout: opts.keepAliveTimeout,
    connectionTimeout: opts.connectionTimeout,
    maxRequestsPerSocket: opts.maxRequestsPerSocket,
    http: {
      headersTimeout: opts.headersTimeout,
      requestTimeout: backstop,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(opts.headersTimeout / 2))),
    },
  };
}

/** Caps Node applies on the listening server itself: sockets over `maxConnections` are closed on accept. */
export function applyServerLimits(server: Server, opts: Pick<ResolvedServerOptions, "maxConnections">): void {
  server.maxConnections = opts.maxConnections;
}

/**
 * A fastify `preParsing` hook: a request with a body gets `bodyTimeout` ms to deliver it, counted from when its
 * headers were read; after that the body stream fails with a 408 `request_timeout` ApiError (the error handler
 * answers it and closes the connection).
 */
export function bodyDeadline(bodyTimeout: number) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: Readable): Promise<Readable> => {
    const headers = request.headers;
    if (headers["content-length"] === undefined && headers["transfer-encoding"] === undefined) return payload;
    if (request.raw.complete) return payload;
    return withDeadline(payload, bodyTimeout, reply.raw);
  };
}

/**
 * `source` through a stream that fails once `ms` have passed without its end. The timer also stops when the
 * response is done first (a 413 is sent before the body is read): no one would hear the error then.
 */
function withDeadline(source: Readable, ms: number, response: ServerResponse): Readable {
  const out = new PassThrough();
  const timer = setTimeout(() => {
    source.unpipe(out);
    source.pause();
    out.destroy(new ApiError(408, "request_timeout", `The request body did not arrive within ${ms} ms. Send the whole body at once, or start qtc serve with a larger --body-timeout.`));
  }, ms);
  timer.unref();
  const done = () => clearTimeout(timer);
  source.once("end", done);
  source.once("error", (e) => {
    done();
    out.destroy(e);
  });
  out.once("close", done);
  response.once("finish", done);
  response.once("close", done);
  // A body stream that fails after its reader has gone must not become an uncaught exception.
  out.on("error", () => undefined);
  source.pipe(out);
  return out;
}
