// Issue 43 through the server: `qtc serve --upstream` in front of an OpenAI-style server that streams Qwen3.5's
// call inside an unclosed think block. The client gets the `editor` call (path manic_miner.html, new_text `}});`)
// as `tool_calls`, streamed and not, and the reasoning apart from it; before, the turn came back empty.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOpenAIChatRuntime } from "../../src/engines/index.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { post, start, type Running } from "../server/helpers.js";

const TOOLS = [
  {
    type: "function",
    function: {
      name: "editor",
      parameters: { type: "object", properties: { path: { type: "string" }, new_text: { type: "string" } }, required: ["path", "new_text"] },
    },
  },
];
const EXAMPLE =
  "<think>I need to fix the extra brace…<tool_call>\n<function=editor>\n<parameter=path>\nmanic_miner.html\n</parameter>\n<parameter=new_text>\n}});\n</parameter>\n</function>\n</tool_call>";

let fake: FakeUpstream;
let server: Running;
beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.chatText = EXAMPLE;
  server = await start({ runtime: await createOpenAIChatRuntime(fake.url, { format: "qwen35" }), onInternalError: () => undefined });
});
afterAll(async () => {
  await server?.app.close();
  await fake?.stop();
});

const request = (stream: boolean) => ({ model: "m", messages: [{ role: "user", content: "fix the brace" }], tools: TOOLS, max_tokens: 256, stream });

describe("issue 43 through qtc serve --upstream", () => {
  test("not streamed: the editor call as tool_calls", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, request(false));
    expect(res.status).toBe(200);
    const message = res.json.choices[0].message;
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls[0].function.name).toBe("editor");
    expect(JSON.parse(message.tool_calls[0].function.arguments)).toEqual({ path: "manic_miner.html", new_text: "}});" });
    expect(res.json.choices[0].finish_reason).toBe("tool_calls");
    expect(JSON.stringify(message)).not.toContain("<tool_call>");
  });

  test("streamed: the editor call arrives as a tool_calls delta", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, request(true));
    expect(res.status).toBe(200);
    const deltas = res.text
      .split("\n\n")
      .filter((e: string) => e.startsWith("data: {"))
      .map((e: string) => JSON.parse(e.slice(6)));
    const calls = deltas.flatMap((d: { choices: Array<{ delta: { tool_calls?: Array<{ function: { name?: string; arguments?: string } }> } }> }) => d.choices.flatMap((c) => c.delta.tool_calls ?? []));
    expect(calls.map((c: { function: { name?: string } }) => c.function.name).filter(Boolean)).toEqual(["editor"]);
    expect(JSON.parse(calls.map((c: { function: { arguments?: string } }) => c.function.arguments ?? "").join(""))).toEqual({ path: "manic_miner.html", new_text: "}});" });
    expect(res.text).toContain('"finish_reason":"tool_calls"');
    expect(res.text).not.toContain("<tool_call>");
  });
});
