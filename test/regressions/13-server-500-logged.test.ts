// Issue 13: "every 500 that remains is logged". With the default `logger: false` an unexpected error went
// nowhere, and a library `internal` error put its message in the 500 body. Now each one reaches
// `onInternalError` (default: stderr), and the client gets a generic 500 in the API's shape.

import { afterEach, expect, test, vi } from "vitest";
import { QtcException } from "../../src/errors.js";
import type { GenerateEvent } from "../../src/runtime/types.js";
import type { ServerRuntime } from "../../src/server/index.js";
import { expectAnthropicError, expectOpenAIError, parseSse, post, type Running, start } from "../server/helpers.js";

const SECRET = "/home/operator/models/secret.gguf";
const user = [{ role: "user", content: "hi" }];
let server: Running | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await server?.app.close();
  server = undefined;
});

/** Fails before any event (`before`), or after one text event. */
function failing(error: () => Error): ServerRuntime {
  return {
    generate: async () => {
      throw error();
    },
    stream: async function* (request): AsyncGenerator<GenerateEvent> {
      if (request.maxTokens === 1) throw error();
      yield { type: "text-delta", text: "partial" };
      throw error();
    },
  };
}

test("an unexpected error is a generic 500 and reaches onInternalError, whole or streamed", async () => {
  const seen: unknown[] = [];
  server = await start({ runtime: failing(() => new TypeError(`cannot read ${SECRET}`)), onInternalError: (e) => seen.push(e) });
  const whole = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
  expectOpenAIError(whole, 500, "internal", null);
  expect(whole.text).not.toContain(SECRET);
  const early = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 1, messages: user, stream: true });
  expectAnthropicError(early, 500, "api_error");
  const streamed = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, stream: true });
  expect(streamed.text).not.toContain(SECRET);
  expect(parseSse(streamed.text).at(-1)!.data.error.code).toBe("internal");
  expect(seen).toHaveLength(3);
  for (const e of seen) expect(String(e)).toContain(SECRET);
});

test("a library `internal` error does not put its message in the answer", async () => {
  const seen: unknown[] = [];
  server = await start({ runtime: failing(() => new QtcException({ code: "internal", message: `invariant broken at ${SECRET}` }, 1)), onInternalError: (e) => seen.push(e) });
  const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
  expectOpenAIError(res, 500, "internal", null);
  expect(res.text).not.toContain(SECRET);
  expect(seen).toHaveLength(1);
});

test("by default (logger off) each 500 is written to stderr with its stack", async () => {
  const lines: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  server = await start({ runtime: failing(() => new RangeError(`Maximum call stack size exceeded near ${SECRET}`)) });
  expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user }), 500, "internal", null);
  const logged = lines.join("");
  expect(logged).toContain(SECRET);
  expect(logged).toContain("RangeError");
});

test("the server's own 503 (a full queue) is not reported as an internal error", async () => {
  const seen: unknown[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow: ServerRuntime = {
    generate: async () => {
      await gate;
      throw new Error("unused");
    },
    stream: async function* (): AsyncGenerator<GenerateEvent> {
      await gate;
    },
  };
  server = await start({ runtime: slow, parallel: 1, queueLimit: 0, onInternalError: (e) => seen.push(e) });
  const first = post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
  await new Promise((r) => setTimeout(r, 100));
  expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user }), 503, "overloaded", null);
  expect(seen).toHaveLength(0);
  release();
  await first;
});
