// Issue 53, item 7: `qtc serve --upstream-kind openai` in front of a server that returns tool calls structured,
// as Ollama and LM Studio do: `delta.tool_calls` pieces when streamed, `message.tool_calls` in a whole reply (with
// Ollama's object `arguments`). qtc keeps them, judged by the same validator as calls written in the text (same
// rejection reasons), on streamed and unstreamed responses. Before, they were dropped, and under
// `tool_choice: "required"` the client got a bare 502.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { serve, type Serving } from "../../src/server/serve.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { parseSse, post } from "../server/helpers.js";

const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const messages = [{ role: "user", content: "read a.ts" }];

/** How the scripted upstream answers: streamed pieces of one call, or one whole JSON reply. */
let reply: { kind: "stream"; name: string; args: string[] } | { kind: "whole"; name: string; args: unknown };

let fake: FakeUpstream;
let serving: Serving;
beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.override = (req, res) => {
    if (req.url !== "/v1/chat/completions") return false;
    if (reply.kind === "whole") {
      const message = { role: "assistant", content: "", tool_calls: [{ id: "call_up", type: "function", function: { name: reply.name, arguments: reply.args } }] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: "tool_calls" }], usage: { prompt_tokens: 5, completion_tokens: 7 } }));
      return true;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: unknown, finish: string | null = null) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_up", type: "function", function: { name: reply.name, arguments: "" } }] });
    for (const piece of reply.args) chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
    chunk({}, "tool_calls");
    res.end("data: [DONE]\n\n");
    return true;
  };
  serving = await serve({ model: `openai:${fake.url}`, port: 0, onInternalError: () => undefined });
}, 60_000);
afterAll(async () => {
  await serving?.close();
  await fake?.stop();
});

const ask = (stream: boolean, toolChoice: unknown = "required") => post(`${serving.url}/v1/chat/completions`, { model: "m", messages, tools: TOOLS, tool_choice: toolChoice, max_tokens: 64, stream });

describe("issue 53 item 7: structured upstream tool calls are kept and judged", () => {
  test("streamed pieces (delta.tool_calls), unstreamed response, tool_choice required: a 200 with the call", async () => {
    reply = { kind: "stream", name: "read_file", args: ['{"pa', 'th": "a', '.ts"}'] };
    const res = await ask(false);
    expect(res.status).toBe(200);
    const calls = res.json.choices[0].message.tool_calls;
    expect(calls.map((c: { function: { name: string } }) => c.function.name)).toEqual(["read_file"]);
    expect(JSON.parse(calls[0].function.arguments)).toEqual({ path: "a.ts" });
    expect(calls[0].id).not.toBe("call_up"); // qtc's own id, never the upstream's
    expect(res.json.choices[0].finish_reason).toBe("tool_calls");
  });

  test("streamed pieces, streamed response: the call arrives as tool_calls deltas", async () => {
    reply = { kind: "stream", name: "read_file", args: ['{"path": ', '"a.ts"}'] };
    const res = await ask(true);
    expect(res.status).toBe(200);
    const deltas = parseSse(res.text).filter((e) => typeof e.data === "object").flatMap((e) => e.data.choices?.[0]?.delta?.tool_calls ?? []);
    expect(deltas.map((d: { function?: { name?: string } }) => d.function?.name).filter(Boolean)).toEqual(["read_file"]);
    expect(JSON.parse(deltas.map((d: { function?: { arguments?: string } }) => d.function?.arguments ?? "").join(""))).toEqual({ path: "a.ts" });
    expect(res.text).toContain('"finish_reason":"tool_calls"');
  });

  test("a whole reply (message.tool_calls, Ollama's object arguments): a 200 with the call", async () => {
    reply = { kind: "whole", name: "read_file", args: { path: "b.ts" } };
    for (const stream of [false, true]) {
      const res = await ask(stream);
      expect(res.status).toBe(200);
      const text = stream ? res.text : JSON.stringify(res.json.choices[0].message.tool_calls);
      expect(text).toContain("read_file");
      expect(text).toContain("b.ts");
    }
  });

  test("an invalid structured call is rejected with the reason a text call gets", async () => {
    // The same bad call written in the text, for the reference reason.
    const cases: Array<[string, string, string]> = [
      ["missing required argument", "read_file", '{"file": "a.ts"}'],
      ["unknown tool", "delete_all", "{}"],
      ["arguments that are not JSON", "read_file", '{"path": "a.ts"'],
    ];
    for (const [what, name, args] of cases) {
      fake.chatText = `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${JSON.stringify(args)}}\n</tool_call>`;
      reply = { kind: "stream", name, args: [args] };
      const structured = await ask(false, "auto");
      expect(structured.status, what).toBe(200);
      expect(structured.json.choices[0].message.tool_calls ?? [], what).toEqual([]);
      const reasons = structured.json.qtc.rejected_calls.map((r: { reason: string }) => r.reason);
      expect(reasons, what).toHaveLength(1);
      const saved = fake.override;
      fake.override = undefined;
      try {
        const text = await ask(false, "auto");
        expect(reasons, what).toEqual(text.json.qtc.rejected_calls.map((r: { reason: string }) => r.reason));
      } finally {
        fake.override = saved;
      }
    }
  });
});
