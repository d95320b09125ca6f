// Issue 30, item 1: an upstream answering a redirect (307 to another path or host) must not get the request
// re-sent there: the redirect target would receive the user's conversation. Every upstream request of every
// engine (`/completion`, `/tokenize`, `/props`, health, the OpenAI routes) treats a 3xx as an upstream error.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createLlamaServerRuntime, createOpenAIChatRuntime } from "../../src/engines/index.js";
import { expectOpenAIError, post, start } from "../server/helpers.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";

const SECRET = "the user's secret message";
const chat = { model: "m", messages: [{ role: "user", content: SECRET }], max_tokens: 16 };

/** A listener on 127.0.0.1 that records every body it receives (the redirect target). */
let trap: Server;
let trapUrl: string;
let received: string[];
let fake: FakeUpstream;

beforeAll(async () => {
  trap = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => trap.listen(0, "127.0.0.1", () => r()));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  fake = await startFakeUpstream();
});
afterAll(async () => {
  await fake?.stop();
  await new Promise<void>((r) => trap.close(() => r()));
});
beforeEach(() => {
  received = [];
  fake.override = undefined;
});

/** The fake answers `paths` with a 307 (or 302) to the trap, keeping the path. */
function redirect(paths: string[], status = 307): void {
  fake.override = (req, res) => {
    if (!paths.includes(req.url ?? "")) return false;
    res.writeHead(status, { location: `${trapUrl}${req.url}` }).end();
    return true;
  };
}

describe("upstream redirects are never followed", () => {
  test("openai engine: a 307 on /v1/chat/completions → 502 upstream_error, and the target heard nothing", async () => {
    const runtime = await createOpenAIChatRuntime(fake.url);
    const server = await start({ runtime, onInternalError: () => undefined });
    try {
      redirect(["/v1/chat/completions"]);
      expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat), 502, "upstream_error");
      redirect(["/v1/chat/completions"], 302);
      expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat), 502, "upstream_error");
      expect(received).toEqual([]);
    } finally {
      await server.app.close();
    }
  });

  test("llama-server engine: a 307 on /completion or /tokenize → 502, the target heard nothing", async () => {
    const runtime = await createLlamaServerRuntime(fake.url);
    const server = await start({ runtime, onInternalError: () => undefined });
    try {
      for (const path of ["/completion", "/tokenize"]) {
        redirect([path]);
        expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat), 502, "upstream_error");
      }
      expect(received).toEqual([]);
    } finally {
      await server.app.close();
    }
  });

  test("connecting: a 307 on /props is refused, not followed", async () => {
    redirect(["/props"]);
    await expect(createLlamaServerRuntime(fake.url)).rejects.toMatchObject({ code: "upstream_error" });
    expect(received).toEqual([]);
  });

  test("health checks: a 307 is unhealthy, not followed to a target that answers 200", async () => {
    const llama = await createLlamaServerRuntime(fake.url);
    const openai = await createOpenAIChatRuntime(fake.url);
    redirect(["/health", "/v1/models"]);
    expect(await llama.healthy(2000)).toBe(false);
    expect(await openai.healthy(2000)).toBe(false);
    expect(received).toEqual([]);
  });
});
