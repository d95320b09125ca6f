// Issue 48: one served request was rendered and tokenized twice (once by the server's budget check, once by the
// turn). Now the budget check prepares the request once (prompt rendered and tokenized, constraint read) and the
// turn uses it; the library path prepares it once too. The runtime reports each preparation (`onPrepare`).

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import type { PreparedRequest } from "../../src/runtime/types.js";
import { tinyModelPath } from "../helpers/models.js";
import { post, type Running, start } from "../server/helpers.js";

const prepared: PreparedRequest[] = [];
let runtime: Runtime;
let server: Running;
const messages = [{ role: "user" as const, content: "Say one word." }];
const tools = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 2, contextSize: 2048, sequences: 1, gpu: "cpu", onPrepare: (p) => prepared.push(p) });
  server = await start({ runtime, defaultMaxTokens: 24 });
});
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

describe("each request is prepared once", () => {
  test.each([
    ["max_tokens given", { max_tokens: 24 }],
    ["no max_tokens (fitted to the context, then the server default)", {}],
    ["streamed, with tools", { max_tokens: 48, stream: true, tools, tool_choice: "required" }],
    ["a regex constraint", { max_tokens: 24, structured_outputs: { regex: "(yes|no)" } }],
  ])("a served chat request (%s): one render and tokenization, whose tokens the turn evaluated", async (_, extra) => {
    prepared.length = 0;
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages, seed: 1, ...extra });
    expect(res.status).toBe(200);
    expect(prepared).toHaveLength(1);
    if (!("stream" in extra)) expect(res.json.usage.prompt_tokens).toBe(prepared[0]!.promptTokens.length);
  });

  test("the library path: generate prepares once; a request given its prepared one prepares nothing more", async () => {
    prepared.length = 0;
    await runtime.generate({ messages, maxTokens: 8, seed: 1 });
    expect(prepared).toHaveLength(1);
    const request = { messages, maxTokens: 8, seed: 1 };
    const ready = await runtime.prepare!(request);
    const out = await runtime.generate({ ...request, prepared: ready });
    expect(prepared).toHaveLength(2);
    expect(out.usage.promptTokens).toBe(ready.promptTokens.length);
  });

  test("a prepared request made from other messages is not used: the turn prepares its own", async () => {
    prepared.length = 0;
    const other = await runtime.prepare!({ messages: [{ role: "user", content: "Something else entirely, and longer." }], maxTokens: 8 });
    const out = await runtime.generate({ messages, maxTokens: 8, seed: 1, prepared: other });
    expect(prepared).toHaveLength(2);
    expect(out.usage.promptTokens).toBe(prepared[1]!.promptTokens.length);
    expect(out.usage.promptTokens).not.toBe(other.promptTokens.length);
  });
});
