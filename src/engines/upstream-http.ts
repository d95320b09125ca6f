// Owns: talking HTTP to an upstream engine with its cost bounded: a time limit on every exchange (a deadline
// nothing extends), a silence limit while a reply streams (only an event with data breaks the silence: keep-alive
// comments and pings do not, issue 52), a size limit on every reply read (JSON, streams, metadata, error bodies),
// no redirect ever followed (a 3xx is an upstream error), and every failure turned into an upstream_* error value.

import { QtcException, type ErrorCode } from "../errors.js";

/** Limits on one upstream exchange. */
export interface UpstreamLimits {
  /**
   * The whole exchange (connect, prompt, every token): a deadline from the request's start that no reply, comment
   * or ping extends (`qtc serve --upstream-timeout`). Default: UPSTREAM_DEFAULTS.timeoutMs.
   */
  timeoutMs: number;
  /**
   * Longest silence between two streamed events that carry data (and before the first); comments (`: ping`) and
   * empty events do not count (`qtc serve --upstream-idle-timeout`). Default: UPSTREAM_DEFAULTS.idleTimeoutMs.
   */
  idleTimeoutMs: number;
  /** Most bytes read from one reply. Default: UPSTREAM_DEFAULTS.maxReplyBytes. */
  maxReplyBytes: number;
}

export const UPSTREAM_DEFAULTS: Readonly<UpstreamLimits> = Object.freeze({
  /** Default: 10 minutes. */
  timeoutMs: 600_000,
  /** Default: 60 s (a long prompt on a busy CPU server takes a while before its first token). */
  idleTimeoutMs: 60_000,
  /** Default: 16 MiB. */
  maxReplyBytes: 16 * 1024 * 1024,
});

/** Times a request the server closed before answering is sent again. */
const SOCKET_RETRIES = 4;

/** An upstream failure as the exception qtc raises for it (exit 1: not the caller's input). */
export function upstreamFailure(code: ErrorCode, message: string): QtcException {
  return new QtcException({ code, message }, 1);
}

/** True for the errors that mean the upstream itself failed (not the request). */
export function isUpstreamFailure(e: unknown): e is QtcException {
  return e instanceof QtcException && e.code.startsWith("upstream_");
}

interface Exchange {
  response: Response;
  /** Re-arm the silence timer (call on each chunk). */
  heard(): void;
  /** Stop the timers and abort the exchange (idempotent). */
  done(): void;
  /** Why the exchange was aborted by qtc, when it was. */
  timedOut(): string | undefined;
}

/** POST a JSON body (GET when `body` is undefined); the timers run until done() is called. */
async function open(url: string, body: unknown, limits: UpstreamLimits, signal: AbortSignal | undefined): Promise<Exchange> {
  const controller = new AbortController();
  let reason: string | undefined;
  const abortFor = (why: string) => {
    reason ??= why;
    controller.abort();
  };
  const total = setTimeout(() => abortFor(`no complete reply within ${limits.timeoutMs} ms`), limits.timeoutMs);
  let idle = setTimeout(() => abortFor(`silent for ${limits.idleTimeoutMs} ms`), limits.idleTimeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const done = () => {
    clearTimeout(total);
    clearTimeout(idle);
    signal?.removeEventListener("abort", onAbort);
    controller.abort();
  };
  // Never follow a redirect: the body (the user's conversation) would be re-sent to wherever the upstream says.
  const send = () =>
    body === undefined
      ? fetch(url, { method: "GET", redirect: "manual", signal: controller.signal })
      : fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: controller.signal });
  try {
    // llama-server closes a connection it has no HTTP thread for (its pool is slots + 4 by default) and one it
    // kept alive as it is reused: the request did not run, so it is sent again (a few times, backing off).
    let response: Response | undefined;
    for (let attempt = 0; !response; attempt++) {
      response = await send().catch(async (e: unknown) => {
        if (reason || signal?.aborted || attempt >= SOCKET_RETRIES || (e as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw e;
        await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
        return undefined;
      });
    }
    return {
      response,
      heard: () => {
        clearTimeout(idle);
        idle = setTimeout(() => abortFor(`silent for ${limits.idleTimeoutMs} ms`), limits.idleTimeoutMs);
      },
      done,
      timedOut: () => reason,
    };
  } catch (e) {
    done();
    throw connectFailure(url, e, reason, signal);
  }
}

/** A failure before any reply: refused, unreachable, timed out, or the caller's abort. */
function connectFailure(url: string, e: unknown, timedOut: string | undefined, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return new QtcException({ code: "aborted", message: "the request was aborted" }, 1);
  if (timedOut) return upstreamFailure("upstream_timeout", `${url}: ${timedOut}; check that the upstream is running and not overloaded`);
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return upstreamFailure("upstream_unavailable", `${url}: ${cause?.code ?? cause?.message ?? String(e)}; check that the upstream is running and reachable`);
}

/** Fail for a non-2xx status, with the start of the upstream's own message. */
async function checkStatus(url: string, ex: Exchange, limits: UpstreamLimits): Promise<void> {
  if (ex.response.ok) return;
  if (isRedirect(ex.response.status)) {
    ex.done();
    throw upstreamFailure("upstream_error", `${url} answered a redirect (HTTP ${ex.response.status}); qtc never follows an upstream's redirects: point qtc at the final address`);
  }
  const text = await readBounded(url, ex, Math.min(limits.maxReplyBytes, 4096), true).catch(() => "");
  ex.done();
  const code: ErrorCode = ex.response.status === 503 ? "upstream_unavailable" : "upstream_error";
  throw upstreamFailure(code, `${url} answered HTTP ${ex.response.status}: ${text.slice(0, 300).replace(/\s+/g, " ")}`);
}

/** The reply body as text, at most `max` bytes (more fails, unless `cut` keeps the first `max`). */
async function readBounded(url: string, ex: Exchange, max: number, cut = false): Promise<string> {
  const reader = ex.response.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    ex.heard();
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => undefined);
      if (cut) return text;
      throw upstreamFailure("upstream_error", `${url}: the reply is over ${max} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** A failure while reading a reply: timed out, or the connection died. */
function readFailure(url: string, e: unknown, ex: Exchange, signal: AbortSignal | undefined): Error {
  if (e instanceof QtcException) return e;
  if (signal?.aborted) return new QtcException({ code: "aborted", message: "the request was aborted" }, 1);
  const timedOut = ex.timedOut();
  if (timedOut) return upstreamFailure("upstream_timeout", `${url}: ${timedOut}`);
  return upstreamFailure("upstream_error", `${url}: the reply broke off (${e instanceof Error ? e.message : String(e)})`);
}

/** A 3xx status (`redirect: "manual"` hands it back as it is). */
function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** GET a URL, read a JSON reply (bounded like every reply: `limits.maxReplyBytes`). */
export function getJson(url: string, limits: UpstreamLimits, signal?: AbortSignal): Promise<unknown> {
  return postJson(url, undefined, limits, signal);
}

/** POST JSON (GET when `body` is undefined), read a JSON reply (bounded). */
export async function postJson(url: string, body: unknown, limits: UpstreamLimits, signal?: AbortSignal): Promise<unknown> {
  const ex = await open(url, body, limits, signal);
  try {
    await checkStatus(url, ex, limits);
    const text = await readBounded(url, ex, limits.maxReplyBytes);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw upstreamFailure("upstream_error", `${url}: the reply is not JSON (${JSON.stringify(text.slice(0, 80))})`);
    }
  } catch (e) {
    throw readFailure(url, e, ex, signal);
  } finally {
    ex.done();
  }
}

/** GET a URL within a time limit; resolves to the HTTP status (0 when it could not be reached; a 3xx is not followed). */
export async function probe(url: string, timeoutMs: number): Promise<number> {
  try {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel().catch(() => undefined);
    return response.status;
  } catch {
    return 0;
  }
}

/**
 * POST JSON and yield each server-sent event's `data` parsed as JSON (bounded in total bytes, in time and in
 * silence). Ends at `[DONE]` or the end of the stream.
 */
export async function* postSse(url: string, body: unknown, limits: UpstreamLimits, signal?: AbortSignal): AsyncGenerator<unknown, void, void> {
  const ex = await open(url, body, limits, signal);
  try {
    await checkStatus(url, ex, limits);
    if (/^application\/json\b/i.test(ex.response.headers.get("content-type") ?? "")) {
      // An upstream that does not stream answers with the whole reply (`message` instead of `delta`).
      let text: string;
      try {
        text = await readBounded(url, ex, limits.maxReplyBytes);
      } catch (e) {
        throw readFailure(url, e, ex, signal);
      }
      yield parseEvent(url, text);
      return;
    }
    const reader = ex.response.body?.getReader();
    if (!reader) throw upstreamFailure("upstream_error", `${url}: the reply has no body`);
    const decoder = new TextDecoder();
    const events = new SseSplitter();
    let bytes = 0;
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw readFailure(url, e, ex, signal);
      }
      if (chunk.done) break;
      bytes += chunk.value.byteLength;
      if (bytes > limits.maxReplyBytes) throw upstreamFailure("upstream_error", `${url}: the reply is over ${limits.maxReplyBytes} bytes`);
      for (const event of events.push(decoder.decode(chunk.value, { stream: true }))) {
        const data = eventData(event);
        if (data === undefined) continue; // a comment or keep-alive: no sign of progress
        ex.heard();
        if (data === "[DONE]") return;
        yield parseEvent(url, data);
      }
    }
    const rest = eventData(events.end(decoder.decode()));
    if (rest !== undefined && rest !== "[DONE]") yield parseEvent(url, rest);
  } finally {
    ex.done();
  }
}

/**
 * Splits a server-sent event stream into events (separated by a blank line: `\n\n`, `\r\n\r\n` or mixed) in
 * linear time: each pushed piece is scanned once (plus the last 3 characters before it, where a separator may
 * start), and the pieces of an unfinished event are kept as a list, joined once when it ends.
 */
export class SseSplitter {
  private parts: string[] = [];
  /** The last (up to 3) characters of `parts`, where a separator split across pieces starts. */
  private tail = "";

  /** The events that `text` completes, in order. */
  push(text: string): string[] {
    const out: string[] = [];
    let piece = text;
    for (;;) {
      const scan = this.tail + piece;
      SEPARATOR.lastIndex = 0;
      const m = SEPARATOR.exec(scan);
      if (!m) {
        if (piece !== "") this.parts.push(piece);
        this.tail = scan.slice(-3);
        return out;
      }
      // The separator starts `tail.length - m.index` characters before `piece` when it began in the tail.
      const inPiece = m.index - this.tail.length;
      const head = this.parts.join("");
      out.push(inPiece >= 0 ? head + piece.slice(0, inPiece) : head.slice(0, head.length + inPiece));
      piece = piece.slice(inPiece + m[0].length);
      this.parts = [];
      this.tail = "";
    }
  }

  /** What is left when the stream ends (an event without its final blank line). */
  end(text = ""): string {
    const rest = this.parts.join("") + text;
    this.parts = [];
    this.tail = "";
    return rest;
  }
}

const SEPARATOR = /\r?\n\r?\n/g;

/** The `data:` lines of one event joined, or undefined for an event without data (a comment, a keep-alive). */
function eventData(event: string): string | undefined {
  const lines = event.split(/\r?\n/).filter((line) => line.startsWith("data:"));
  if (lines.length === 0) return undefined;
  return lines.map((line) => line.slice(5).replace(/^ /, "")).join("\n");
}

function parseEvent(url: string, data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    throw upstreamFailure("upstream_error", `${url}: a streamed event is not JSON (${JSON.stringify(data.slice(0, 80))})`);
  }
}
