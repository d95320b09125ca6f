// Issue 30, item 12: upstream parsing and fan-out. The SSE reader re-scanned its whole buffer on every chunk (one
// 16 MiB event in 16 KiB writes: 21 s); `/tokenize` replies were collected whole before the context check; one
// request with 4,000 messages made 4,008 `/tokenize` calls; an upstream spelling an added token `a` crashed
// `/v1/completions` with a 500 (stack overflow in splitOther); and a reply without a call under `required`, or
// with 2 calls under `parallel_tool_calls: false`, came back as a 200.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createLlamaServerRuntime } from "../../src/engines/index.js";
import { SseSplitter } from "../../src/engines/upstream-http.js";
import { expectOpenAIError, post, start, type Running } from "../server/helpers.js";
import { CALL_TEXT, startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";

const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const user = [{ role: "user", content: "read a.ts" }];

let fake: FakeUpstream;
let server: Running;
beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await start({ runtime: await createLlamaServerRuntime(fake.url, { limits: { timeoutMs: 60_000 } }), onInternalError: () => undefined });
});
afterAll(async () => {
  await server?.app.close();
  await fake?.stop();
});
beforeEach(() => {
  fake.override = undefined;
});

/** /completion streams `text` in pieces, then a final chunk echoing the grammar it was sent. */
function completion(text: string, pieceSize = 7): void {
  fake.override = (req, res, json) => {
    if (req.url !== "/completion") return false;
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (let i = 0; i < text.length; i += pieceSize) res.write(`data: ${JSON.stringify({ content: text.slice(i, i + pieceSize), tokens: [1], stop: false })}\n\n`);
    const final = { content: "", stop: true, stop_type: "eos", tokens_predicted: 3, tokens_evaluated: 3, generation_settings: { grammar: json.grammar, grammar_lazy: json.grammar_lazy ?? false } };
    res.end(`data: ${JSON.stringify(final)}\n\n`);
    return true;
  };
}

describe("SSE splitting", () => {
  test("events come out the same however the stream is cut, separators split across pieces included", () => {
    const stream = 'data: {"a":1}\n\n: keep-alive\r\n\r\ndata: {"b":\ndata: 2}\n\r\ndata: [DONE]\n\n';
    const whole = new SseSplitter();
    const expected = [...whole.push(stream), whole.end()];
    expect(expected).toEqual(['data: {"a":1}', ": keep-alive", 'data: {"b":\ndata: 2}', "data: [DONE]", ""]);
    for (let size = 1; size <= 7; size++) {
      const s = new SseSplitter();
      const got: string[] = [];
      for (let i = 0; i < stream.length; i += size) got.push(...s.push(stream.slice(i, i + size)));
      got.push(s.end());
      expect(got).toEqual(expected);
    }
  });

  test("one 15 MiB event in 16 KiB writes is read in one pass (it took 21 s when each write re-scanned the buffer)", async () => {
    const big = JSON.stringify({ content: "x".repeat(15 * 1024 * 1024), tokens: [1], stop: false });
    fake.override = (req, res, json) => {
      if (req.url !== "/completion") return false;
      res.writeHead(200, { "content-type": "text/event-stream" });
      const frame = `data: ${big}\n\n`;
      for (let i = 0; i < frame.length; i += 16 * 1024) res.write(frame.slice(i, i + 16 * 1024));
      res.end(`data: ${JSON.stringify({ content: "", stop: true, stop_type: "eos", generation_settings: { grammar: json.grammar } })}\n\n`);
      return true;
    };
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, max_tokens: 16 });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content.length).toBe(15 * 1024 * 1024);
  }, 20_000);
});

describe("/tokenize: bounded fan-out and replies", () => {
  test("4,000 distinct messages take a few /tokenize calls, not one per text run", async () => {
    const messages = Array.from({ length: 4000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message number ${i}` }));
    const before = fake.tokenizeCalls;
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [...messages, { role: "user", content: "hi" }], max_tokens: 16 });
    expect(res.status).toBe(400); // the fake's 4,096-token context cannot hold them: refused as the replies arrive
    expect(res.json.error.code).toBe("invalid_option");
    expect(fake.tokenizeCalls - before).toBeLessThanOrEqual(16);
  });

  test("a /tokenize reply far longer than its content can yield is refused (502) without being collected", async () => {
    fake.override = (req, res, json) => {
      if (req.url !== "/tokenize" || json.with_pieces === true) return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"tokens": [${Array.from({ length: 1_000_000 }, () => "100").join(",")}]}`);
      return true;
    };
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, max_tokens: 16 }), 502, "upstream_error");
  });

  test("an upstream spelling an added token `a` is refused when connecting (it crashed /v1/completions with a 500)", async () => {
    fake.override = (req, res, json) => {
      if (req.url !== "/tokenize" || json.with_pieces !== true) return false;
      const spelled = (json.content as number[]).map((id) => ({ id, piece: id === 151657 ? "<tool_call>" : id === 151650 ? "a" : `<x${id}>` }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ tokens: spelled }));
      return true;
    };
    await expect(createLlamaServerRuntime(fake.url)).rejects.toMatchObject({ code: "unsupported_model" });
  });
});

describe("the tool choice is enforced on what the upstream returns", () => {
  // Issue 52: the model's failure gets the one answer every engine gives (400 no_valid_call naming tool_choice).
  test("required, and the upstream answers text (grammar echoed) → 400 no_valid_call, not a 200 without a call", async () => {
    completion("I will not call anything.");
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: TOOLS, tool_choice: "required", max_tokens: 64 }), 400, "no_valid_call", "tool_choice");
  });

  test("required, and the upstream answers an invalid call → 400 no_valid_call", async () => {
    completion('<tool_call>\n{"name": "read_file", "arguments": {"nope": 1}}\n</tool_call>');
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: TOOLS, tool_choice: "required", max_tokens: 64 }), 400, "no_valid_call", "tool_choice");
  });

  test("parallel_tool_calls false, and the upstream answers 2 calls → 502, streamed or not", async () => {
    completion(`${CALL_TEXT}\n${CALL_TEXT}`);
    const body = { model: "m", messages: user, tools: TOOLS, tool_choice: "auto", parallel_tool_calls: false, max_tokens: 64 };
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, body), 502, "upstream_error");
    const streamed = await post(`${server.url}/v1/chat/completions`, { ...body, stream: true });
    const calls = streamed.text.split("\n").filter((l) => l.includes('"tool_calls"') && l.includes('"name"')).length;
    expect(calls).toBeLessThanOrEqual(1);
    expect(streamed.text).toContain("upstream_error");
  });

  test("one call under parallel_tool_calls false is served", async () => {
    completion(CALL_TEXT);
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: TOOLS, tool_choice: "required", parallel_tool_calls: false, max_tokens: 64 });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.tool_calls).toHaveLength(1);
  });
});
