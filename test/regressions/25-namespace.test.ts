// Issue 25: Codex (@openai/codex ≥ 0.147) sends its tools in `additional_tools` input items, grouped in `namespace`
// tools, beside built-ins such as `web_search`; each was a 400. Now a namespace is flattened into its function
// members (named `<namespace>__<name>` for the model, or joined as is when the namespace ends in `_`, `.`, `:`
// or `-`), a call comes back with `namespace` and `name` as declared, a history call with `namespace` renders
// under the flattened name, and built-ins are left out with a notice.

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

const getCustomer = { type: "function", name: "get_customer", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } };
const crm = { type: "namespace", name: "crm", description: "CRM", tools: [getCustomer] };
const fs = { type: "namespace", name: "mcp__fs__", description: "files", tools: [{ type: "function", name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }] };
const names = (r: FakeRuntime) => (r.requests.at(-1)!.tools ?? []).map((t) => ("function" in t ? t.function.name : t.name));

describe("Responses namespace tools", () => {
  test("flattened into the grammar's tools; the call comes back with namespace and name", async () => {
    const res = await post(`${server.url}/v1/responses`, { model: "m", input: "hi", tools: [crm, fs, { type: "web_search" }], tool_choice: "required" });
    expect(res.status).toBe(200);
    expect(names(fake)).toEqual(["crm__get_customer", "mcp__fs__read"]);
    const call = res.json.output.find((i: { type: string }) => i.type === "function_call");
    expect([call.namespace, call.name]).toEqual(["crm", "get_customer"]);
    expect(res.json.qtc.notices.join(" ")).toMatch(/left out 1 built-in tool.*web_search/);
  });

  test("streamed, the call's items carry the namespace too", async () => {
    const res = await post(`${server.url}/v1/responses`, { model: "m", input: "hi", tools: [crm], tool_choice: "required", stream: true });
    expect(res.status).toBe(200);
    const added = res.text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6))).find((e) => e.type === "response.output_item.added" && e.item.type === "function_call");
    expect([added.item.namespace, added.item.name]).toEqual(["crm", "get_customer"]);
  });

  test("Codex's shape: tools in an additional_tools input item, replayed, and a namespaced call in history", async () => {
    const input = [
      { type: "additional_tools", tools: [crm] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "who is 7?" }] },
      { type: "function_call", call_id: "c1", namespace: "crm", name: "get_customer", arguments: '{"id":"7"}' },
      { type: "function_call_output", call_id: "c1", output: "Ada" },
      { type: "additional_tools", tools: [crm] },
    ];
    const res = await post(`${server.url}/v1/responses`, { model: "m", input, tools: [] });
    expect(res.status).toBe(200);
    expect(names(fake)).toEqual(["crm__get_customer"]);
    const messages = fake.requests.at(-1)!.messages;
    expect(messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ function: { name: "crm__get_customer" } }] });
    expect(messages[2]).toMatchObject({ role: "tool", name: "crm__get_customer", content: "Ada" });
  });
});
