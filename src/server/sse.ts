// Owns: writing Server-Sent Events on a raw Node response (with backpressure), and turning a client that goes
// away into an AbortSignal.

import type { IncomingMessage, ServerResponse } from "node:http";

/** One SSE event: `data` is JSON (or a literal string such as `[DONE]`); `event` names it when the API does. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

export class SseWriter {
  readonly #res: ServerResponse;
  #open = false;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get closed(): boolean {
    return this.#res.destroyed || this.#res.writableEnded;
  }

  /** Send the 200 and the SSE headers now (before the first event). */
  open(extraHeaders: Record<string, string> = {}): void {
    if (this.#open) return;
    this.#open = true;
    this.#res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      ...extraHeaders,
    });
    this.#res.flushHeaders();
  }

  /** Write one event: `event: NAME` (when given) and `data: JSON` (or a literal string such as `[DONE]`). */
  async send(data: unknown, event?: string): Promise<void> {
    if (this.closed) return;
    const payload = typeof data === "string" ? data : JSON.stringify(data);
    const frame = `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
    if (!this.#res.write(frame)) await drained(this.#res);
  }

  end(): void {
    if (!this.closed) this.#res.end();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * An AbortController that fires when the client disconnects before the response has been fully written
 * (the response's `close` comes without `writableFinished`). Call `dispose()` once done.
 */
export function abortOnDisconnect(req: IncomingMessage, res: ServerResponse): { signal: AbortSignal; abort: (reason?: unknown) => void; dispose: () => void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new DisconnectError());
  };
  res.on("close", onClose);
  req.on("aborted", onClose);
  return {
    signal: controller.signal,
    abort: (reason?: unknown) => controller.abort(reason),
    dispose: () => {
      res.off("close", onClose);
      req.off("aborted", onClose);
    },
  };
}

/** The abort reason when the client went away. */
export class DisconnectError extends Error {
  constructor() {
    super("the client disconnected");
    this.name = "DisconnectError";
  }
}
