// Issue 13: requests that answered 500 (an uncaught throw, or a stack overflow in the renderer): a `$schema` of
// draft-04 or an unknown URL, schemas nested 1,000 deep, and history tool-call arguments / tool_use.input nested
// 10,000 deep. Each must be a 400 in the API's error shape, naming the field; against the real runtime.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { tinyModelPath } from "../helpers/models.js";
import { expectAnthropicError, expectOpenAIError, post, type Running, start } from "../server/helpers.js";

let runtime: Runtime;
let server: Running;
const user = [{ role: "user", content: "hi" }];

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1, gpu: "cpu" });
  server = await start({ runtime });
});
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

/** A schema whose `properties` chain nests `levels` objects deep. */
function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

/** `{"a": {"a": … 1 …}}` nested `levels` deep, as JSON text. */
const deepText = (levels: number) => `${'{"a": '.repeat(levels)}1${"}".repeat(levels)}`;
const DEEP = "__DEEP__";
/** The body as JSON text with the string DEEP replaced by `raw` JSON (JSON.stringify overflows on 10,000 levels). */
const spliced = (body: unknown, raw: string) => JSON.stringify(body).replace(JSON.stringify(DEEP), raw);

const tool = (parameters: unknown) => ({ type: "function", function: { name: "f", parameters } });
const answer = (schema: unknown) => ({ type: "json_schema", json_schema: { name: "answer", schema } });
const withSchema = ($schema: string) => ({ $schema, type: "object", properties: { a: { type: "string" } } });
const historyCall = (args: unknown) => [
  ...user,
  { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: args } }] },
  { role: "tool", tool_call_id: "call_1", content: "ok" },
];
const F = tool({ type: "object", properties: { a: { type: "string" } } });

/** [name, code, param, body (JSON text where JSON.stringify would overflow)]. */
const OPENAI_CASES: Array<[string, string, string, Record<string, unknown> | string]> = [
  ["a draft-04 $schema in a tool", "invalid_schema", "tools", { messages: user, tools: [tool(withSchema("http://json-schema.org/draft-04/schema#"))] }],
  ["an unknown $schema URL in a tool", "invalid_schema", "tools", { messages: user, tools: [tool(withSchema("https://example.com/my-meta-schema"))] }],
  ["a draft-04 $schema in response_format", "invalid_schema", "response_format.json_schema.schema", { messages: user, response_format: answer(withSchema("http://json-schema.org/draft-04/schema#")) }],
  ["an unknown $schema URL in response_format", "invalid_schema", "response_format.json_schema.schema", { messages: user, response_format: answer(withSchema("urn:example:meta")) }],
  ["a $ref to a remote URL in a tool", "invalid_schema", "tools", { messages: user, tools: [tool({ type: "object", properties: { a: { $ref: "https://example.com/s.json" } } })] }],
  ["a tool schema nested 1,000 deep", "schema_too_large", "tools", { messages: user, tools: [tool(deepSchema(1000))] }],
  ["a response schema nested 1,000 deep", "schema_too_large", "response_format.json_schema.schema", { messages: user, response_format: answer(deepSchema(1000)) }],
  ["a tool schema nested 1,000 deep through items", "schema_too_large", "tools", { messages: user, tools: [tool({ type: "object", properties: { a: JSON.parse(`${'{"type": "array", "items": '.repeat(1000)}{}${"}".repeat(1000)}`) } })] }],
  ["history arguments (an object) nested 10,000 deep", "invalid_request", "messages[1].tool_calls[0].function.arguments", spliced({ messages: historyCall(DEEP), tools: [F] }, deepText(10_000))],
  ["history arguments (JSON text) nested 10,000 deep", "invalid_request", "messages[1].tool_calls[0].function.arguments", { messages: historyCall(deepText(10_000)), tools: [F] }],
];

describe("OpenAI: no 500 for deep or odd input", () => {
  test.each(OPENAI_CASES)("%s → 400 %s %s", async (_name, code, param, body) => {
    const full = typeof body === "string" ? body.replace(/^\{/, '{"model": "m", "max_tokens": 8, ') : { model: "m", max_tokens: 8, ...body };
    const res = await post(`${server.url}/v1/chat/completions`, full);
    expectOpenAIError(res, 400, code, param);
  });

  test.each([
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
  ])("$schema %s is accepted", async ($schema) => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", max_tokens: 48, messages: user, tools: [tool(withSchema($schema))], tool_choice: "required" });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.tool_calls[0].function.name).toBe("f");
  });
});

const A = (extra: Record<string, unknown>) => ({ model: "m", max_tokens: 8, messages: user, ...extra });
const toolUse = (input: unknown) => [
  ...user,
  { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
];

describe("Anthropic: no 500 for deep or odd input", () => {
  test.each<[string, unknown]>([
    ["a draft-04 $schema", A({ tools: [{ name: "f", input_schema: withSchema("http://json-schema.org/draft-04/schema#") }] })],
    ["an input_schema nested 1,000 deep", A({ tools: [{ name: "f", input_schema: deepSchema(1000) }] })],
    ["tool_use.input nested 10,000 deep", spliced(A({ messages: toolUse(DEEP), tools: [{ name: "f", input_schema: { type: "object" } }] }), deepText(10_000))],
  ])("%s → 400 invalid_request_error", async (_name, body) => {
    expectAnthropicError(await post(`${server.url}/v1/messages`, body), 400, "invalid_request_error");
  });
});

test("the server still answers after all of them", async () => {
  const res = await post(`${server.url}/v1/chat/completions`, { model: "m", max_tokens: 8, messages: user });
  expect(res.status).toBe(200);
});
