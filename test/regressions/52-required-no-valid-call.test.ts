// Issue 52, row 14: `tool_choice: required` with every call rejected had two answers: the local engine gave a 200
// with no call, the upstream engines a 502. One answer now, on every engine, whole or streamed: 400 `no_valid_call`
// naming `tool_choice` (docs/server.md). A client that asked for a call never gets a turn without one.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLlamaServerRuntime } from "../../src/engines/index.js";
import { useTinyServer } from "../helpers/tiny-server.js";
import { expectAnthropicError, expectOpenAIError, post, start, type Running } from "../server/helpers.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";

// "…|a.{11}$" (an `a` twelve characters from the end: 2^12 DFA states) keeps the two patterns past what the grammar's
// automata hold (regex-dfa.ts), so the validator still judges them.
const SCHEMA = { type: "object", properties: { v: { type: "string", allOf: [{ pattern: "^a" }, { pattern: "b$|a.{11}$" }] } }, required: ["v"] };
const TOOLS = [{ type: "function", function: { name: "f", parameters: SCHEMA } }];
const LIMIT_MS = 120_000;
const local = useTinyServer();

let fake: FakeUpstream;
let upstream: Running;
beforeAll(async () => {
  fake = await startFakeUpstream();
  upstream = await start({ runtime: await createLlamaServerRuntime(fake.url, { limits: { timeoutMs: 60_000 } }), onInternalError: () => undefined });
  // The upstream writes a call that fails the check the grammar left to the validator (v must end with "b").
  const text = '<tool_call>\n{"name": "f", "arguments": {"v": "ax"}}\n</tool_call>';
  fake.override = (req, res, json) => {
    if (req.url !== "/completion") return false;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ content: text, tokens: [1], stop: false })}\n\n`);
    const final = { content: "", stop: true, stop_type: "eos", tokens_predicted: 3, tokens_evaluated: 3, generation_settings: { grammar: json.grammar, grammar_lazy: json.grammar_lazy ?? false } };
    res.end(`data: ${JSON.stringify(final)}\n\n`);
    return true;
  };
}, LIMIT_MS);
afterAll(async () => {
  await upstream?.app.close();
  await fake?.stop();
});

const chat = (stream: boolean, seed: number) => ({ model: "m", messages: [{ role: "user", content: "hi" }], tools: TOOLS, tool_choice: "required", seed, max_tokens: 64, stream });

describe("required, every call rejected: 400 no_valid_call on every engine", () => {
  test("local engine (the synthetic tiny model fails the pattern on seed 3): chat whole and streamed, Anthropic, Responses", async () => {
    for (const stream of [false, true]) {
      const r = await post(`${local.url}/v1/chat/completions`, chat(stream, 3));
      expectOpenAIError(r, 400, "no_valid_call", "tool_choice");
      expect(r.json.error.message).toMatch(/rejected: f: schema/);
    }
    const anthropic = await post(`${local.url}/v1/messages`, { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }], tools: [{ name: "f", input_schema: SCHEMA }], tool_choice: { type: "tool", name: "f" } });
    // Unseeded there: a valid call is possible but rare; any other answer is the refusal.
    if (anthropic.status !== 200) expectAnthropicError(anthropic, 400, "invalid_request_error");
    else expect(anthropic.json.stop_reason).toBe("tool_use");
    const responses = await post(`${local.url}/v1/responses`, { model: "m", input: "hi", tools: [{ type: "function", name: "f", parameters: SCHEMA }], tool_choice: "required", max_output_tokens: 64 });
    if (responses.status !== 200) expectOpenAIError(responses, 400, "no_valid_call", "tool_choice");
    else expect(responses.json.output.some((i: { type: string }) => i.type === "function_call")).toBe(true);
  }, LIMIT_MS);

  test("upstream engine (llama-server) writing the same rejected call: the same 400, whole and streamed", async () => {
    for (const stream of [false, true]) {
      const r = await post(`${upstream.url}/v1/chat/completions`, chat(stream, 3));
      expectOpenAIError(r, 400, "no_valid_call", "tool_choice");
      expect(r.json.error.message).toMatch(/rejected: f: schema/);
    }
  }, LIMIT_MS);
});
