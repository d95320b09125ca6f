// Hostile upstreams (issue 30): a fake llama-server and a fake OpenAI endpoint on 127.0.0.1 behind qtc's server
// answer with redirects, oversized metadata and replies, absurd numbers and the wrong calls. Each class gets its
// API error (upstream_* codes, gateway statuses), `/health` answers within 1 s while it runs, the process's RSS
// grows by less than RSS_LIMIT, and a normal request is served right after it.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createLlamaServerRuntime, createOpenAIChatRuntime } from "../../src/engines/index.js";
import { healthPoller, rssPeak } from "../helpers/health-poll.js";
import { CALL_TEXT, startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { post, start, type Running } from "./helpers.js";

const HEALTH_LIMIT_MS = 1000;
/** Peak RSS growth one class may cause: generous for a loaded machine, far below the replies' sizes (≥ 64 MiB). */
const RSS_LIMIT = 256 * 1024 * 1024;

const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const user = [{ role: "user", content: "read a.ts" }];
const chat = (extra: Record<string, unknown> = {}) => ({ model: "m", messages: user, max_tokens: 32, ...extra });

let fake: FakeUpstream;
let llama: Running;
let openai: Running;
beforeAll(async () => {
  fake = await startFakeUpstream();
  llama = await start({ runtime: await createLlamaServerRuntime(fake.url), onInternalError: () => undefined });
  openai = await start({ runtime: await createOpenAIChatRuntime(fake.url), onInternalError: () => undefined });
});
afterAll(async () => {
  await llama?.app.close();
  await openai?.app.close();
  await fake?.stop();
});

let polls: ReturnType<typeof healthPoller>[];
let rss: ReturnType<typeof rssPeak>;
beforeEach(() => {
  fake.override = undefined;
  polls = [healthPoller(llama.url), healthPoller(openai.url)];
  rss = rssPeak();
});
afterEach(async () => {
  const slowest = Math.max(...(await Promise.all(polls.map((p) => p.stop()))));
  const growth = rss.stop();
  fake.override = undefined;
  expect(slowest, "slowest /health answer (ms) while the row ran").toBeLessThan(HEALTH_LIMIT_MS);
  expect(growth, "peak RSS growth (bytes) while the row ran").toBeLessThan(RSS_LIMIT);
  for (const server of [llama, openai]) {
    const ok = await post(`${server.url}/v1/chat/completions`, chat({ tools: TOOLS, tool_choice: "required", max_tokens: 256 }));
    expect(ok.status).toBe(200);
  }
});

/** Answer `path` with `bytes` of JSON-ish padding in 1 MiB writes (stops when the client leaves). */
function huge(path: string, bytes: number, head = '{"pad": "'): void {
  const piece = "x".repeat(1024 * 1024);
  fake.override = (req, res, json) => {
    if (req.url !== path || (path === "/tokenize" && json.with_pieces === true)) return false;
    res.writeHead(200, { "content-type": path === "/completion" || path === "/v1/chat/completions" ? "text/event-stream" : "application/json" });
    res.write(head);
    let sent = 0;
    const more = () => {
      while (sent < bytes && !res.destroyed) {
        sent += piece.length;
        if (!res.write(piece)) return void res.once("drain", more);
      }
      if (!res.destroyed) res.end();
    };
    res.on("close", () => (sent = bytes));
    more();
    return true;
  };
}

const redirect = (path: string) => {
  fake.override = (req, res) => {
    if (req.url !== path) return false;
    res.writeHead(307, { location: `${fake.url}/elsewhere` }).end();
    return true;
  };
};

type Row = [string, () => Promise<{ status: number; code?: string }>, number, string];
const send = (server: () => Running, body: unknown) => async () => {
  const res = await post(`${server().url}/v1/chat/completions`, body);
  return { status: res.status, code: res.json?.error?.code };
};

const ROWS: Row[] = [
  ["llama-server: a 307 on /completion", async () => (redirect("/completion"), send(() => llama, chat())()), 502, "upstream_error"],
  ["llama-server: a 307 on /tokenize", async () => (redirect("/tokenize"), send(() => llama, chat())()), 502, "upstream_error"],
  ["openai: a 307 on /v1/chat/completions", async () => (redirect("/v1/chat/completions"), send(() => openai, chat())()), 502, "upstream_error"],
  ["connecting: a 307 on /props", async () => {
    redirect("/props");
    const error = await createLlamaServerRuntime(fake.url).then(() => undefined, (e: { code: string }) => e);
    return { status: error ? 502 : 200, code: error?.code };
  }, 502, "upstream_error"],
  ["connecting: a 64 MiB /props", async () => {
    huge("/props", 64 * 1024 * 1024);
    const error = await createLlamaServerRuntime(fake.url).then(() => undefined, (e: { code: string }) => e);
    return { status: error ? 502 : 200, code: error?.code };
  }, 502, "upstream_error"],
  ["llama-server: a 64 MiB /tokenize reply", async () => (huge("/tokenize", 64 * 1024 * 1024, '{"tokens": [1'), send(() => llama, chat())()), 502, "upstream_error"],
  ["llama-server: a 64 MiB streamed event", async () => (huge("/completion", 64 * 1024 * 1024, 'data: {"content": "'), send(() => llama, chat())()), 502, "upstream_error"],
  ["openai: usage of 1e308 tokens", async () => {
    fake.override = (req, res) => {
      if (req.url !== "/v1/chat/completions") return false;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }] })}\n\n`);
      res.end(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 1e308, completion_tokens: 1e308 } })}\n\ndata: [DONE]\n\n`);
      return true;
    };
    return send(() => openai, chat())();
  }, 502, "upstream_error"],
  ["openai: text and no call under required", async () => {
    fake.chatText = "No call from me.";
    try {
      return await send(() => openai, chat({ tools: TOOLS, tool_choice: "required", max_tokens: 256 }))();
    } finally {
      fake.chatText = CALL_TEXT;
    }
    // The model's failure, answered alike on every engine (issue 52, row 14).
  }, 400, "no_valid_call"],
  ["openai: 2 calls under parallel_tool_calls false", async () => {
    fake.chatText = `${CALL_TEXT}\n${CALL_TEXT}`;
    try {
      return await send(() => openai, chat({ tools: TOOLS, tool_choice: "required", parallel_tool_calls: false, max_tokens: 256 }))();
    } finally {
      fake.chatText = CALL_TEXT;
    }
  }, 502, "upstream_error"],
];

describe("hostile upstreams", () => {
  test.each(ROWS)("%s", async (_name, run, status, code) => {
    const got = await run();
    expect(got.status).toBe(status);
    expect(got.code).toBe(code);
  }, 30_000);
});
