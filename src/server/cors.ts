// Owns: CORS for browser clients (`qtc serve --cors`): a preflight `OPTIONS` answered before the API-key check
// (browsers send it without credentials), and the CORS headers on every response from an allowed origin, streams
// and errors included.
//
// Hand-written rather than @fastify/cors (11.x fits fastify 5 and Node 20, with fastify-plugin and toad-cache): the
// whole behaviour is an origin list and four headers, and a plugin would add two packages to every install for it.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Methods a browser may use on qtc's routes. */
const METHODS = "GET, POST, OPTIONS";
/** Request headers allowed when a preflight names none. */
const HEADERS = "Authorization, Content-Type, x-api-key, anthropic-version, anthropic-beta, x-qtc-call-policy";
/** Response headers a browser script may read besides the safelisted ones. */
const EXPOSED = "x-qtc-notices, x-qtc-grammar";
/** How long a browser may cache a preflight's answer, in seconds. */
const MAX_AGE = 600;
/** Longest `Access-Control-Request-Headers` echoed back. */
const MAX_ECHO = 1024;

/**
 * The allowed origins of `--cors`: `*` (any origin), or a list of exact origins (`https://app.example`). An empty
 * list turns CORS off.
 */
export function parseCorsOrigins(value: string): string[] {
  const origins = value
    .split(",")
    .map((s) => s.trim().replace(/\/+$/, ""))
    .filter((s) => s !== "");
  for (const origin of origins) {
    if (origin !== "*" && !/^https?:\/\/[^/\s]+$/i.test(origin)) throw new RangeError(`a CORS origin is "*" or scheme://host[:port], got ${JSON.stringify(origin)}`);
  }
  return origins;
}

/**
 * Add CORS to the server: register it before the API-key hook, so a preflight is answered without the key. A
 * request from an origin not in the list gets no CORS headers (the browser then refuses the answer to its script).
 */
export function applyCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes("*");
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (typeof origin !== "string") return;
    const ok = any || allowed.has(origin.toLowerCase());
    // Set on the raw response so that streamed (hijacked) answers carry them too.
    const res = reply.raw;
    if (ok) {
      res.setHeader("access-control-allow-origin", any ? "*" : origin);
      res.setHeader("access-control-expose-headers", EXPOSED);
    }
    if (!any) res.setHeader("vary", "Origin");
    if (request.method !== "OPTIONS" || request.headers["access-control-request-method"] === undefined) return;
    if (ok) {
      const asked = request.headers["access-control-request-headers"];
      res.setHeader("access-control-allow-methods", METHODS);
      res.setHeader("access-control-allow-headers", typeof asked === "string" && asked.length <= MAX_ECHO ? asked : HEADERS);
      res.setHeader("access-control-max-age", String(MAX_AGE));
    }
    return reply.code(204).send();
  });
}
