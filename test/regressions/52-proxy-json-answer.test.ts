// Issue 52, row 12: `qtc serve --upstream-kind openai` with `response_format: json_object`, and an upstream
// answer whose string quotes call markup. The answer keeps its strings; before, the quoted block was cut out
// (`{"example": ""}`).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOpenAIChatRuntime } from "../../src/engines/index.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { parseSse, post, start, type Running } from "../server/helpers.js";

const ANSWER = JSON.stringify({ example: '<tool_call>\n{"name": "delete_all", "arguments": {}}\n</tool_call>', note: "see: <tool_call>x</tool_call>" });

let fake: FakeUpstream;
let server: Running;
beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.chatText = ANSWER;
  server = await start({ runtime: await createOpenAIChatRuntime(fake.url), onInternalError: () => undefined });
});
afterAll(async () => {
  await server?.app.close();
  await fake?.stop();
});

const request = (stream: boolean, tools: boolean) => ({
  model: "m",
  messages: [{ role: "user", content: "show the call format as JSON" }],
  response_format: { type: "json_object" },
  ...(tools ? { tools: [{ type: "function", function: { name: "delete_all", parameters: { type: "object", properties: {} } } }] } : {}),
  max_tokens: 256,
  stream,
});

describe("issue 52 row 12: a JSON answer keeps its strings", () => {
  for (const tools of [false, true]) {
    test(`not streamed${tools ? ", with tools" : ""}: the content is the upstream's JSON, unchanged`, async () => {
      const res = await post(`${server.url}/v1/chat/completions`, request(false, tools));
      expect(res.status).toBe(200);
      const message = res.json.choices[0].message;
      expect(message.tool_calls ?? []).toEqual([]);
      expect(JSON.parse(message.content)).toEqual(JSON.parse(ANSWER));
    });
  }

  test("streamed: the deltas join to the upstream's JSON, and no tool call", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, request(true, true));
    expect(res.status).toBe(200);
    const chunks = parseSse(res.text).filter((e) => e.data !== "[DONE]" && typeof e.data === "object");
    const text = chunks.map((e) => e.data.choices?.[0]?.delta?.content ?? "").join("");
    expect(JSON.parse(text)).toEqual(JSON.parse(ANSWER));
    expect(chunks.some((e) => e.data.choices?.[0]?.delta?.tool_calls)).toBe(false);
  });
});
