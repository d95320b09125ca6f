// What llama-server and vLLM users expect of `qtc serve`, through a real `qtc serve` (in-process, the tiny model):
// /health answers 503 while the model loads and 200 after, `--cors` answers a browser's preflight and marks
// answers, `--alias` names the model, `n` gives n choices, and `logprobs` gives each token's log-probability.

import { createServer as createNetServer, type AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { main } from "../../src/cli/cli.js";
import { serve } from "../../src/server/serve.js";
import { tinyModelPath } from "../helpers/models.js";
import { expectOpenAIError, parseSse, post, waitFor } from "./helpers.js";

const ORIGIN = "https://app.example";
const ALIAS = "my-model";
let baseURL = "";
let stop: (() => void) | undefined;
let done: Promise<number> | undefined;
/** Every /health answer from process start until the first 200: status and body. */
const healthSeen: Array<{ status: number; body: any }> = [];
/** A chat request sent while /health said loading. */
let duringLoad: { status: number; json: any } | undefined;

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Polled from before the command starts: refused until it listens, then whatever it answers until it is ready.
  let polling = true;
  const poller = (async () => {
    while (polling) {
      try {
        const res = await fetch(`${url}/health`);
        const body = await res.json();
        healthSeen.push({ status: res.status, body });
        if (res.status === 503 && duringLoad === undefined) duringLoad = await post(`${url}/v1/chat/completions`, { model: ALIAS, messages: [{ role: "user", content: "hi" }] });
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  let stdout = "";
  const before = new Set(process.listeners("SIGINT"));
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  done = main(["node", "qtc", "serve", "--model", "synthetic:tiny", "--port", String(port), "--threads", "2", "--context-size", "1024", "--gpu", "cpu", "--alias", ALIAS, "--cors", ORIGIN]);
  await waitFor(() => stdout.includes("\n"), 120_000);
  baseURL = stdout.match(/(http:\/\/\S+)\/v1/)![1]!;
  stop = process.listeners("SIGINT").find((l) => !before.has(l)) as (() => void) | undefined;
  await waitFor(() => healthSeen.some((h) => h.status === 200), 60_000);
  polling = false;
  await poller;
}, 180_000);

afterAll(async () => {
  stop?.();
  await done;
  vi.restoreAllMocks();
});

const MESSAGES = [{ role: "user", content: "Say something." }];

describe("/health while the model loads", () => {
  test("serve() listens before it loads: /health is 503 loading, other routes 503 `loading`, then 200", async () => {
    let seen: Array<{ status: number; json: any }> = [];
    const serving = await serve({
      model: await tinyModelPath(),
      port: 0,
      threads: 2,
      contextSize: 512,
      gpu: "cpu",
      // Called once it listens and before the model loads: the loading state, observed without any timing.
      onListening: async (url) => {
        const health = await fetch(`${url}/health`);
        seen.push({ status: health.status, json: await health.json() });
        seen.push(await post(`${url}/v1/chat/completions`, { model: "m", messages: MESSAGES }));
      },
    });
    try {
      expect(seen[0]).toEqual({ status: 503, json: { status: "loading", model: "qtc", mode: "constrained" } });
      expectOpenAIError(seen[1]!, 503, "loading");
      const ready = await fetch(`${serving.url}/health`);
      expect(ready.status).toBe(200);
      expect((await ready.json()).status).toBe("ok");
    } finally {
      await serving.close();
    }
  }, 120_000);

  test("qtc serve polled from process start: 503 {status: loading} until ready, then 200; a request meanwhile is a 503", () => {
    const statuses = healthSeen.map((h) => h.status);
    expect(statuses.at(-1)).toBe(200);
    // Listening before loading: the first answers say loading (the load takes a model's worth of work).
    expect(statuses[0]).toBe(503);
    expect(statuses.slice(0, -1).every((s) => s === 503)).toBe(true);
    for (const h of healthSeen.slice(0, -1)) expect(h.body.status).toBe("loading");
    expectOpenAIError(duringLoad!, 503, "loading");
  });
});

describe("--cors", () => {
  test("a preflight from an allowed origin is answered without the key, allowing POST, Authorization and Content-Type", async () => {
    const res = await fetch(`${baseURL}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: { origin: ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase();
    expect(allowed).toContain("authorization");
    expect(allowed).toContain("content-type");
  });

  test("answers (whole and streamed) carry the CORS header; another origin gets none", async () => {
    const whole = await post(`${baseURL}/v1/chat/completions`, { model: ALIAS, messages: MESSAGES, max_tokens: 4, seed: 1 }, { origin: ORIGIN });
    expect(whole.status).toBe(200);
    expect(whole.headers["access-control-allow-origin"]).toBe(ORIGIN);
    const streamed = await post(`${baseURL}/v1/chat/completions`, { model: ALIAS, messages: MESSAGES, max_tokens: 4, seed: 1, stream: true }, { origin: ORIGIN });
    expect(streamed.headers["access-control-allow-origin"]).toBe(ORIGIN);
    expect(parseSse(streamed.text).at(-1)!.data).toBe("[DONE]");
    const other = await fetch(`${baseURL}/v1/models`, { headers: { origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${baseURL}/v1/models`, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "GET" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("--alias", () => {
  test("names the model in /v1/models and in responses; a request naming it is served", async () => {
    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "none" });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([ALIAS]);
    const completion = await client.chat.completions.create({ model: ALIAS, messages: [{ role: "user", content: "hi" }], max_tokens: 4, seed: 1 });
    expect(completion.model).toBe(ALIAS);
    const health = await (await fetch(`${baseURL}/health`)).json();
    expect(health.model).toBe(ALIAS);
  });
});

describe("n", () => {
  test("n: 2 gives 2 choices, numbered 0 and 1, with usage over both (chat, through the SDK)", async () => {
    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "none" });
    const completion = await client.chat.completions.create({ model: ALIAS, messages: [{ role: "user", content: "hi" }], max_tokens: 6, seed: 3, n: 2 });
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1]);
    for (const c of completion.choices) {
      expect(typeof c.message.content).toBe("string");
      expect(["stop", "length"]).toContain(c.finish_reason);
    }
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    expect((completion as any).qtc.choices).toHaveLength(2);
  });

  test("completions: n: 3 gives 3 choices; n: 9 and a streamed n: 2 are 400s naming n", async () => {
    const res = await post(`${baseURL}/v1/completions`, { model: ALIAS, prompt: "Once", max_tokens: 4, seed: 1, n: 3 });
    expect(res.status, res.text).toBe(200);
    expect(res.json.choices.map((c: any) => c.index)).toEqual([0, 1, 2]);
    expectOpenAIError(await post(`${baseURL}/v1/chat/completions`, { model: ALIAS, messages: MESSAGES, n: 9 }), 400, "unsupported_parameter", "n");
    expectOpenAIError(await post(`${baseURL}/v1/chat/completions`, { model: ALIAS, messages: MESSAGES, n: 2, stream: true }), 400, "unsupported_parameter", "n");
  });
});

describe("logprobs", () => {
  const client = () => new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "none" });

  test("chat: logprobs: true with top_logprobs: 3 gives one entry per output token, each with 3 alternatives", async () => {
    const completion = await client().chat.completions.create({ model: ALIAS, messages: [{ role: "user", content: "hi" }], max_tokens: 6, seed: 2, logprobs: true, top_logprobs: 3 });
    const content = completion.choices[0]!.logprobs!.content!;
    expect(content).toHaveLength(completion.usage!.completion_tokens);
    // The answer's text is its tokens' texts (no call, no reasoning in a 6-token plain answer of this model).
    const text = completion.choices[0]!.message.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    expect(content.map((t) => t.token).join("")).toContain(text.trim());
    for (const t of content) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.bytes).toEqual([...Buffer.from(t.token, "utf8")]);
      expect(t.top_logprobs).toHaveLength(3);
      const tops = t.top_logprobs.map((a) => a.logprob);
      expect([...tops].sort((a, b) => b - a)).toEqual(tops);
      // The most likely alternative is at least as likely as the token taken.
      expect(tops[0]!).toBeGreaterThanOrEqual(t.logprob);
    }
  });

  test("chat: without logprobs the field is null; logprobs: true alone gives no alternatives; streamed, the finish chunk carries them", async () => {
    const plain = await client().chat.completions.create({ model: ALIAS, messages: [{ role: "user", content: "hi" }], max_tokens: 4, seed: 2 });
    expect(plain.choices[0]!.logprobs).toBeNull();
    const bare = await client().chat.completions.create({ model: ALIAS, messages: [{ role: "user", content: "hi" }], max_tokens: 4, seed: 2, logprobs: true });
    for (const t of bare.choices[0]!.logprobs!.content!) expect(t.top_logprobs).toEqual([]);
    const res = await post(`${baseURL}/v1/chat/completions`, { model: ALIAS, messages: [{ role: "user", content: "hi" }], max_tokens: 4, seed: 2, logprobs: true, top_logprobs: 2, stream: true });
    const chunks = parseSse(res.text).filter((f) => f.data !== "[DONE]").map((f) => f.data);
    const withLogprobs = chunks.filter((c) => c.choices?.[0]?.logprobs);
    expect(withLogprobs).toHaveLength(1);
    expect(withLogprobs[0].choices[0].finish_reason).not.toBeNull();
    expect(withLogprobs[0].choices[0].logprobs.content.length).toBeGreaterThan(0);
    expectOpenAIError(await post(`${baseURL}/v1/chat/completions`, { model: ALIAS, messages: MESSAGES, logprobs: true, top_logprobs: 21 }), 400, "invalid_request", "top_logprobs");
  });

  test("completions: logprobs: 2 gives tokens, token_logprobs, top_logprobs (2 each) and text_offset", async () => {
    const res = await post(`${baseURL}/v1/completions`, { model: ALIAS, prompt: "Once upon", max_tokens: 5, seed: 4, logprobs: 2 });
    expect(res.status, res.text).toBe(200);
    const lp = res.json.choices[0].logprobs;
    const n = res.json.usage.completion_tokens;
    expect(lp.tokens).toHaveLength(n);
    expect(lp.token_logprobs).toHaveLength(n);
    expect(lp.top_logprobs).toHaveLength(n);
    // The tokens spell the answer (the text may be trimmed of surrounding whitespace).
    expect(lp.tokens.join("")).toContain(res.json.choices[0].text.trim());
    for (const top of lp.top_logprobs) expect(Object.keys(top).length).toBeLessThanOrEqual(2);
    expect(lp.text_offset[0]).toBe(0);
    for (let i = 1; i < n; i++) expect(lp.text_offset[i]).toBe(lp.text_offset[i - 1] + lp.tokens[i - 1].length);
  });
});
