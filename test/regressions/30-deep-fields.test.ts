// Issue 30, item 4: `/v1/responses` answered 500 `internal` for `metadata` or `text` nested 10,000 deep (both are
// echoed back in the response). Every field of every route gets a depth limit before anything reads or echoes it:
// a 400 naming the field, in the API's own shape, and the next request is served.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectAnthropicError, expectOpenAIError, post, start, type Running } from "../server/helpers.js";
import { fakeRuntime } from "../server/fake-runtime.js";

const deep = (levels: number) => `${'{"a": '.repeat(levels)}1${"}".repeat(levels)}`;
const deepArray = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;
/** A JSON body with `"__DEEP__"` replaced by raw JSON text. */
const spliced = (body: unknown, raw: string) => JSON.stringify(body).replace('"__DEEP__"', raw);

let server: Running;
const internal: unknown[] = [];
beforeAll(async () => {
  server = await start({ runtime: fakeRuntime(), onInternalError: (e) => internal.push(e) });
});
afterAll(async () => {
  await server?.app.close();
});

const input = "hi";
const user = [{ role: "user", content: "hi" }];

describe("fields nested 10,000 deep are a 400 on every route, never a 500", () => {
  test.each([
    ["/v1/responses metadata", "/v1/responses", { model: "m", input, metadata: "__DEEP__" }, "metadata"],
    ["/v1/responses text", "/v1/responses", { model: "m", input, text: "__DEEP__" }, "text"],
    ["/v1/responses reasoning", "/v1/responses", { model: "m", input, reasoning: "__DEEP__" }, "reasoning"],
    ["/v1/responses an unknown field", "/v1/responses", { model: "m", input, user_data: "__DEEP__" }, "user_data"],
    ["/v1/chat/completions metadata", "/v1/chat/completions", { model: "m", messages: user, metadata: "__DEEP__" }, "metadata"],
    ["/v1/chat/completions stream_options", "/v1/chat/completions", { model: "m", messages: user, stream: true, stream_options: "__DEEP__" }, "stream_options"],
    ["/v1/completions an unknown field", "/v1/completions", { model: "m", prompt: "hi", extra: "__DEEP__" }, "extra"],
  ])("%s", async (_name, path, body, param) => {
    for (const raw of [deep(10_000), deepArray(10_000)]) {
      expectOpenAIError(await post(`${server.url}${path}`, spliced(body, raw)), 400, "invalid_request", param);
    }
  });

  test.each([
    ["/v1/messages metadata", "/v1/messages", { model: "m", max_tokens: 8, messages: user, metadata: "__DEEP__" }],
    ["/v1/messages/count_tokens an unknown field", "/v1/messages/count_tokens", { model: "m", messages: user, extra: "__DEEP__" }],
    ["/v1/messages/count_tokens tool_use.input", "/v1/messages/count_tokens", { model: "m", messages: [...user, { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "__DEEP__" }] }] }],
  ])("%s", async (_name, path, body) => {
    expectAnthropicError(await post(`${server.url}${path}`, spliced(body, deep(10_000)), { "anthropic-version": "2023-06-01" }), 400, "invalid_request_error");
  });

  test("metadata that is not the API's string pairs is a 400 on /v1/responses; good metadata is echoed", async () => {
    expectOpenAIError(await post(`${server.url}/v1/responses`, { model: "m", input, metadata: { a: { b: 1 } } }), 400, "invalid_request", "metadata");
    const ok = await post(`${server.url}/v1/responses`, { model: "m", input, metadata: { run: "7" } });
    expect(ok.status).toBe(200);
    expect(ok.json.metadata).toEqual({ run: "7" });
    expect(internal).toEqual([]);
  });
});
