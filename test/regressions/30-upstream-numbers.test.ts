// Issue 30, item 7: an OpenAI-kind upstream's `usage` of 1e308 tokens reached the client and /metrics. Every
// number taken from an upstream (usage, tokens_predicted, token ids, rates, slots, n_ctx) is checked: a whole
// number in its bounds, else the reply is refused as upstream_error (502), and nothing of it is reported.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createLlamaServerRuntime, createOpenAIChatRuntime } from "../../src/engines/index.js";
import { expectOpenAIError, post, start, type Running } from "../server/helpers.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";

const chat = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 16 };
let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.chatText = "Hello.";
});
afterAll(async () => {
  await fake?.stop();
});
beforeEach(() => {
  fake.override = undefined;
});

/** A chat stream: one text delta, the finish, then `usage` as given. */
function chatWithUsage(usage: unknown): void {
  fake.override = (req, res) => {
    if (req.url !== "/v1/chat/completions") return false;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Hello." }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
    res.end(`data: ${JSON.stringify({ choices: [], usage })}\n\ndata: [DONE]\n\n`);
    return true;
  };
}

describe("numbers from an upstream are checked", () => {
  let server: Running;
  beforeAll(async () => {
    server = await start({ runtime: await createOpenAIChatRuntime(fake.url), onInternalError: () => undefined });
  });
  afterAll(async () => {
    await server?.app.close();
  });

  test.each([
    ["1e308 completion tokens", { prompt_tokens: 3, completion_tokens: 1e308 }],
    ["negative prompt tokens", { prompt_tokens: -5, completion_tokens: 1 }],
    ["fractional tokens", { prompt_tokens: 2.5, completion_tokens: 1 }],
    ["a string count", { prompt_tokens: "12", completion_tokens: 1 }],
  ])("openai engine, usage with %s → 502 upstream_error; /metrics never shows it", async (_name, usage) => {
    chatWithUsage(usage);
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat), 502, "upstream_error");
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).not.toMatch(/e\+308|Infinity|-5\b/);
  });

  test("openai engine, sane usage is passed on as it is", async () => {
    chatWithUsage({ prompt_tokens: 3, completion_tokens: 2 });
    const res = await post(`${server.url}/v1/chat/completions`, chat);
    expect(res.status).toBe(200);
    expect(res.json.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2 });
  });

  test("llama-server engine: tokens_predicted 1e308 or a token id of -1 → 502 upstream_error", async () => {
    const llama = await start({ runtime: await createLlamaServerRuntime(fake.url), onInternalError: () => undefined });
    try {
      for (const [final, tokens] of [[{ tokens_predicted: 1e308 }, [1]], [{}, [-1]]] as const) {
        fake.override = (req, res) => {
          if (req.url !== "/completion") return false;
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`data: ${JSON.stringify({ content: "Hi", tokens, stop: false })}\n\n`);
          res.end(`data: ${JSON.stringify({ content: "", stop: true, stop_type: "eos", tokens_evaluated: 3, ...final, generation_settings: {} })}\n\n`);
          return true;
        };
        expectOpenAIError(await post(`${llama.url}/v1/chat/completions`, chat), 502, "upstream_error");
      }
    } finally {
      await llama.app.close();
    }
  });

  test("llama-server engine: /props with total_slots 1e308 or n_ctx -1 is refused when connecting", async () => {
    for (const props of [{ total_slots: 1e308 }, { default_generation_settings: { n_ctx: -1 } }]) {
      fake.override = (req, res) => {
        if (req.url !== "/props") return false;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(props));
        return true;
      };
      await expect(createLlamaServerRuntime(fake.url)).rejects.toMatchObject({ code: "upstream_error" });
    }
  });
});
