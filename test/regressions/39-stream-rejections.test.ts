// Issue 39, item 2: a streamed turn said nothing about the blocks it rejected. Through `qtc serve --upstream` in
// front of a plain OpenAI-compatible server whose model leaves a malformed Qwen3 call in `content`, a non-streamed
// body named it in `qtc.rejected_calls` (invalid_json) but a streamed one ended with no call, no content and no
// reason. Now every route's last chunk or event carries the same `qtc` object, and the official SDKs still parse
// every stream.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { serve, type Serving } from "../../src/server/serve.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { parseSse, post } from "../server/helpers.js";

/** A hermes block whose JSON is cut (a quote missing): the parser rejects it as invalid_json. */
const MALFORMED = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts}}\n</tool_call>';
const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const ANTHROPIC_TOOLS = [{ name: "read_file", input_schema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"] } }];
const messages = [{ role: "user" as const, content: "read a.ts" }];
const REJECTED = [expect.objectContaining({ reason: "invalid_json", message: expect.any(String) })];

let fake: FakeUpstream;
let serving: Serving;
beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.chatText = MALFORMED;
  serving = await serve({ model: `openai:${fake.url}`, port: 0, onInternalError: () => undefined });
}, 60_000);
afterAll(async () => {
  await serving?.close();
  await fake?.stop();
});

describe("rejected blocks in responses (issue 39)", () => {
  test("/v1/chat/completions: qtc.rejected_calls whole and in the finish chunk; the openai SDK parses the stream", async () => {
    const whole = await post(`${serving.url}/v1/chat/completions`, { model: "m", messages, tools: TOOLS, tool_choice: "auto" });
    expect(whole.json.qtc.rejected_calls).toEqual(REJECTED);
    const openai = new OpenAI({ baseURL: `${serving.url}/v1`, apiKey: "none", maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: "m", messages, tools: TOOLS as OpenAI.ChatCompletionTool[], tool_choice: "auto", stream: true });
    let qtc: any;
    let finish: string | null = null;
    for await (const chunk of stream) {
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.choices[0]?.finish_reason) qtc = (chunk as unknown as { qtc: unknown }).qtc;
    }
    expect(finish).toBe("stop");
    expect(qtc.rejected_calls).toEqual(REJECTED);
  });

  test("/v1/messages: qtc.rejected_calls whole and in message_delta; the anthropic SDK parses the stream", async () => {
    const whole = await post(`${serving.url}/v1/messages`, { model: "m", max_tokens: 64, messages, tools: ANTHROPIC_TOOLS });
    expect(whole.json.qtc.rejected_calls).toEqual(REJECTED);
    const anthropic = new Anthropic({ baseURL: serving.url, apiKey: "none", maxRetries: 0 });
    const stream = anthropic.messages.stream({ model: "m", max_tokens: 64, messages, tools: ANTHROPIC_TOOLS });
    let qtc: any;
    for await (const event of stream) if (event.type === "message_delta") qtc = (event as unknown as { qtc: unknown }).qtc;
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("end_turn");
    expect(qtc.rejected_calls).toEqual(REJECTED);
  });

  test("/v1/responses: qtc.rejected_calls whole and in response.completed; the openai SDK parses the stream", async () => {
    const tools = [{ type: "function", name: "read_file", parameters: TOOLS[0]!.function.parameters }];
    const whole = await post(`${serving.url}/v1/responses`, { model: "m", input: "read a.ts", tools });
    expect(whole.json.qtc.rejected_calls).toEqual(REJECTED);
    const raw = await post(`${serving.url}/v1/responses`, { model: "m", input: "read a.ts", tools, stream: true });
    const completed = parseSse(raw.text).find((f) => f.event === "response.completed")!;
    expect(completed.data.response.qtc.rejected_calls).toEqual(REJECTED);
    const openai = new OpenAI({ baseURL: `${serving.url}/v1`, apiKey: "none", maxRetries: 0 });
    const stream = await openai.responses.create({ model: "m", input: "read a.ts", tools: tools as OpenAI.Responses.Tool[], stream: true });
    let qtc: any;
    for await (const event of stream) if (event.type === "response.completed") qtc = (event.response as unknown as { qtc: unknown }).qtc;
    expect(qtc.rejected_calls).toEqual(REJECTED);
  });
});
