// Issue 25: tool-search results carry `tool_reference` blocks, and current Anthropic clients send `document`,
// `search_result`, `thinking`/`redacted_thinking` in history and `cache_control` anywhere: each was a 400. Each is
// now handled on purpose: text the model reads, or left out with a notice (server tools' history), or refused with
// a reason (binary documents, images: the models are text-only).

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime, type FakeRuntime } from "../server/fake-runtime.js";
import { expectAnthropicError, post, type Running, start } from "../server/helpers.js";

let fake: FakeRuntime;
let server: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  server = await start({ runtime: fake });
});
afterAll(() => server.app.close());

const ask = (messages: unknown[], extra: Record<string, unknown> = {}) => post(`${server.url}/v1/messages`, { model: "m", max_tokens: 64, messages, ...extra });
const toolUse = { role: "assistant", content: [{ type: "thinking", thinking: "search", signature: "s" }, { type: "redacted_thinking", data: "xx" }, { type: "tool_use", id: "toolu_1", name: "ToolSearch", input: { query: "notebook" } }] };

describe("Anthropic content blocks as clients send them", () => {
  test("a tool_result holding tool_reference blocks is served; the model reads which tool is available", async () => {
    const res = await ask([{ role: "user", content: "find a tool" }, toolUse, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "tool_reference", tool_name: "NotebookEdit" }] }] }], {
      tools: [{ name: "ToolSearch", input_schema: { type: "object", properties: { query: { type: "string" } } }, cache_control: { type: "ephemeral" } }],
    });
    expect(res.status).toBe(200);
    const messages = fake.requests.at(-1)!.messages;
    expect(messages[1]).toMatchObject({ role: "assistant", reasoning_content: "search", tool_calls: [{ function: { name: "ToolSearch" } }] });
    expect(messages[2]).toMatchObject({ role: "tool", content: 'Tool "NotebookEdit" is now available.' });
  });

  test("document (text source) and search_result blocks become text", async () => {
    const res = await ask([
      {
        role: "user",
        content: [
          { type: "document", source: { type: "text", media_type: "text/plain", data: "The sky is blue." }, title: "Facts", cache_control: { type: "ephemeral" } },
          { type: "search_result", source: "https://example.com/a", title: "A", content: [{ type: "text", text: "Result text." }], citations: { enabled: true } },
          { type: "text", text: "Summarise." },
        ],
      },
    ]);
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.messages[0]).toEqual({ role: "user", content: "Facts\nThe sky is blue.\nA (https://example.com/a)\nResult text.\nSummarise." });
  });

  test("server tools' history blocks are left out with a notice; a PDF document is refused naming its source", async () => {
    const served = await ask([
      { role: "user", content: "search" },
      { role: "assistant", content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } }, { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] }, { type: "text", text: "Found nothing." }] },
      { role: "user", content: "ok" },
    ]);
    expect(served.status).toBe(200);
    expect(served.json.qtc.notices.join(" ")).toMatch(/"server_tool_use", "web_search_tool_result"/);
    const pdf = await ask([{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "AA==" } }] }]);
    expectAnthropicError(pdf, 400, "invalid_request_error");
    expect(pdf.json.error.message).toMatch(/^messages\[0\]\.content\[0\]\.source\.type/);
  });
});
