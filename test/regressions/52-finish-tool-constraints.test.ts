// Issue 52, row 8: the `finish-tool` call policy silently dropped answer constraints and `response_format`: the
// answer became the free text of a `finish` call, with no `qtc.answer`. Such a request is now refused with a 400
// that names the constraining field (docs/server.md), under the header and under the server's own policy.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime } from "../server/fake-runtime.js";
import { expectAnthropicError, expectOpenAIError, post, type Running, start } from "../server/helpers.js";

const tool = { type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
const HEADER = { "x-qtc-call-policy": "finish-tool" };
let server: Running;
let policyServer: Running;
beforeAll(async () => {
  server = await start({ runtime: fakeRuntime() });
  policyServer = await start({ runtime: fakeRuntime(), callPolicy: "finish-tool" });
});
afterAll(async () => {
  await server.app.close();
  await policyServer.app.close();
});

const chat = (extra: Record<string, unknown>) => ({ model: "m", messages: [{ role: "user", content: "hi" }], tools: [tool], max_tokens: 64, ...extra });

describe("finish-tool with an answer constraint is refused, naming the field", () => {
  test("guided_choice, response_format and structured_outputs on chat, by header", async () => {
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat({ guided_choice: ["alpha", "beta"] }), HEADER), 400, "invalid_request", "guided_choice");
    const format = { type: "json_schema", json_schema: { name: "a", schema: { type: "object", properties: { a: { type: "string" } } } } };
    const r = await post(`${server.url}/v1/chat/completions`, chat({ response_format: format }), HEADER);
    expectOpenAIError(r, 400, "invalid_request");
    expect(r.json.error.param).toMatch(/^response_format/);
    expectOpenAIError(await post(`${server.url}/v1/chat/completions`, chat({ structured_outputs: { regex: "[a-z]+" } }), HEADER), 400, "invalid_request", "structured_outputs.regex");
  });

  test("under the server's own finish-tool policy, streamed too, and on the Anthropic route", async () => {
    expectOpenAIError(await post(`${policyServer.url}/v1/chat/completions`, chat({ guided_choice: ["alpha", "beta"], stream: true })), 400, "invalid_request", "guided_choice");
    const messages = { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }], tools: [{ name: "read_file", input_schema: tool.function.parameters }], guided_choice: ["alpha", "beta"] };
    const r = await post(`${policyServer.url}/v1/messages`, messages);
    expectAnthropicError(r, 400, "invalid_request_error");
    expect(r.json.error.message).toContain("guided_choice");
  });

  test("without a constraint the policy still applies (the finish call is the answer)", async () => {
    const r = await post(`${server.url}/v1/chat/completions`, chat({}), HEADER);
    expect(r.status).toBe(200);
  });
});
