// Issue 30, item 11: work before limits. ajv compiled a schema before the grammar's 10,000-value limit was checked
// (a nested anyOf 90×90 was refused only after 3.9 s of a blocked event loop). The server checks the document
// limits (a bounded, iterative walk) before any compile, for tools and response schemas alike.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { healthPoller } from "../helpers/health-poll.js";
import { fakeRuntime } from "../server/fake-runtime.js";
import { expectOpenAIError, post, start, type Running } from "../server/helpers.js";

let server: Running;
beforeAll(async () => {
  server = await start({ runtime: fakeRuntime() });
});
afterAll(async () => {
  await server?.app.close();
});

/** anyOf of `n` branches, each an anyOf of `n` distinct string consts: n² leaves, over 10,000 values at 90. */
const nestedAnyOf = (n: number) => ({ anyOf: Array.from({ length: n }, (_, i) => ({ anyOf: Array.from({ length: n }, (_, j) => ({ const: `v${i}-${j}` })) })) });
const user = [{ role: "user", content: "hi" }];

describe("schema limits are checked before any compile", () => {
  test("a tool whose schema is a nested anyOf 90×90 → 400 schema_too_large, /health within 1 s", async () => {
    const health = healthPoller(server.url);
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: nestedAnyOf(90) } } } }], tool_choice: "required" });
    const slowest = await health.stop();
    expectOpenAIError(res, 400, "schema_too_large", "tools");
    expect(slowest, "slowest /health answer (ms)").toBeLessThan(1000);
  });

  test("the same as a response schema → 400 schema_too_large naming it", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, response_format: { type: "json_schema", json_schema: { name: "a", schema: nestedAnyOf(90) } } });
    expectOpenAIError(res, 400, "schema_too_large", "response_format.json_schema.schema");
    const responses = await post(`${server.url}/v1/responses`, { model: "m", input: "hi", text: { format: { type: "json_schema", name: "a", schema: nestedAnyOf(90) } } });
    expectOpenAIError(responses, 400, "schema_too_large", "text.format.schema");
  });

  test("a schema within the limits is compiled and served", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: nestedAnyOf(5) } } } }], tool_choice: "required" });
    expect(res.status).toBe(200);
  });
});
