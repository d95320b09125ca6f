// Issue 25: tools marked `defer_loading` (Claude Code's tool search, the Responses API's tool_search) went into the
// prompt and the grammar anyway, so a placeholder the client never wants called could be called. Now they are held
// back, with a notice, until the conversation loads them: a `tool_reference` block, an earlier call to them, or
// the tool choice naming them.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime, type FakeRuntime } from "../server/fake-runtime.js";
import { post, type Running, start } from "../server/helpers.js";

let fake: FakeRuntime;
let server: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  server = await start({ runtime: fake });
});
afterAll(() => server.app.close());

const schema = { type: "object", properties: { q: { type: "string" } } };
const anthropicTools = [
  { name: "Read", input_schema: schema },
  { name: "NotebookEdit", input_schema: schema, defer_loading: true },
  { name: "CronCreate", input_schema: schema, defer_loading: true },
];
const names = () => (fake.requests.at(-1)!.tools ?? []).map((t) => ("function" in t ? t.function.name : t.name));

describe("defer_loading", () => {
  test("Anthropic: deferred tools are out of the turn until loaded, and the response says so", async () => {
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }], tools: anthropicTools, tool_choice: { type: "any" } });
    expect(res.status).toBe(200);
    expect(names()).toEqual(["Read"]);
    expect(res.json.qtc.notices.join(" ")).toMatch(/held back 2 tools marked defer_loading.*"NotebookEdit", "CronCreate"/);
  });

  test("Anthropic: a tool_reference loads the one it names", async () => {
    const messages = [
      { role: "user", content: "edit the notebook" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { q: "select:NotebookEdit" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "tool_reference", tool_name: "NotebookEdit" }] }] },
    ];
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 64, messages, tools: anthropicTools });
    expect(res.status).toBe(200);
    expect(names()).toEqual(["Read", "NotebookEdit"]);
  });

  test("a tool choice naming a deferred tool loads it", async () => {
    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }], tools: anthropicTools, tool_choice: { type: "tool", name: "CronCreate" } });
    expect(res.status).toBe(200);
    expect(names()).toEqual(["Read", "CronCreate"]);
    expect(res.json.content[0]).toMatchObject({ type: "tool_use", name: "CronCreate" });
  });

  test("Responses: a deferred function stays out until a function_call in history used it", async () => {
    const tools = [{ type: "function", name: "a", parameters: schema }, { type: "function", name: "b", parameters: schema, defer_loading: true }, { type: "tool_search" }];
    const first = await post(`${server.url}/v1/responses`, { model: "m", input: "hi", tools });
    expect(first.status).toBe(200);
    expect(names()).toEqual(["a"]);
    const input = ["hi", { type: "function_call", call_id: "c", name: "b", arguments: "{}" }, { type: "function_call_output", call_id: "c", output: "ok" }];
    const second = await post(`${server.url}/v1/responses`, { model: "m", input: [{ role: "user", content: input[0] }, input[1], input[2]], tools });
    expect(second.status).toBe(200);
    expect(names()).toEqual(["a", "b"]);
  });
});
