// The Responses API (`POST /v1/responses`) through the official `openai` client: function tools, a
// function_call_output round trip, streamed `response.*` events that add up to the final response, and refusals.

import OpenAI from "openai";
import { afterEach, describe, expect, test } from "vitest";
import { fakeRuntime } from "./fake-runtime.js";
import { expectOpenAIError, post, type Running, start } from "./helpers.js";

const READ_FILE = {
  type: "function" as const,
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  strict: true,
};

let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

async function client(runtime = fakeRuntime()) {
  server = await start({ runtime });
  return { openai: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x" }), runtime };
}

describe("POST /v1/responses", () => {
  test("a function call comes back as a function_call item", async () => {
    const { openai } = await client();
    const response = await openai.responses.create({ model: "m", input: "read a.ts", tools: [READ_FILE], tool_choice: "required" });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    const calls = response.output.filter((item) => item.type === "function_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: "function_call", name: "read_file", status: "completed" });
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ path: "path-value" });
    expect(calls[0]!.call_id).toMatch(/^call_/);
    expect(response.usage!.input_tokens).toBe(10);
  });

  test("text comes back as output_text, and function_call_output items reach the model as tool results", async () => {
    const { openai, runtime } = await client();
    const response = await openai.responses.create({
      model: "m",
      instructions: "Be brief.",
      input: [
        { role: "user", content: "read a.ts" },
        { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path": "a.ts"}' },
        { type: "function_call_output", call_id: "call_1", output: "export const a = 1;" },
      ],
      tools: [READ_FILE],
    });
    expect(response.output_text).toBe("Hello from qtc.");
    expect(runtime.requests[0]!.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "read a.ts" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path": "a.ts"}' } }] },
      { role: "tool", content: "export const a = 1;", tool_call_id: "call_1", name: "read_file" },
    ]);
  });

  test("streamed: response.* events in order whose deltas add up to the completed response", async () => {
    const { openai } = await client(fakeRuntime({ delayMs: 1 }));
    const stream = await openai.responses.create({ model: "m", input: "read a.ts", tools: [READ_FILE], tool_choice: "required", stream: true });
    const events: Array<Record<string, any>> = [];
    for await (const event of stream) events.push(event as unknown as Record<string, any>);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("response.created");
    expect(types[1]).toBe("response.in_progress");
    expect(types.at(-1)).toBe("response.completed");
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(types).toContain("response.output_item.added");
    const args = events.filter((e) => e.type === "response.function_call_arguments.delta").map((e) => e.delta).join("");
    const done = events.find((e) => e.type === "response.function_call_arguments.done")!;
    expect(done.arguments).toBe(args);
    const final = events.at(-1)!.response;
    expect(final.output).toHaveLength(1);
    expect(final.output[0]).toMatchObject({ type: "function_call", name: "read_file", arguments: args, id: done.item_id });
  });

  test("streamed text: output_text deltas, then the done events", async () => {
    const { openai } = await client();
    const stream = await openai.responses.create({ model: "m", input: "hi", stream: true });
    let text = "";
    let final: any;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") final = event.response;
    }
    expect(text).toBe("Hello from qtc.");
    expect(final.output[0].content[0]).toMatchObject({ type: "output_text", text });
  });

  test("what qtc cannot honour is a 400 naming the field", async () => {
    await client();
    const url = `${server!.url}/v1/responses`;
    expectOpenAIError(await post(url, { model: "m", input: "x", previous_response_id: "resp_1" }), 400, "unsupported_parameter", "previous_response_id");
    expectOpenAIError(await post(url, { model: "m", input: [{ role: "user", content: [{ type: "input_image", image_url: "x" }] }] }), 400, "unsupported_parameter", "input[0].content[0].type");
    expectOpenAIError(await post(url, { model: "m", input: "x", tools: [{ type: "namespace", name: "crm", tools: "get" }] }), 400, "invalid_request", "tools[0].tools");
    expectOpenAIError(await post(url, { model: "m", input: "x", tools: [READ_FILE], tool_choice: { type: "function", name: "nope" } }), 400, "invalid_tool_choice", "tool_choice.name");
    expectOpenAIError(await post(url, { model: "m", input: [] }), 400, "invalid_request", "input");
  });
});

describe("the SDK's responses.stream helper", () => {
  test("accumulates the streamed events (reasoning, text) into the same response the events end with", async () => {
    const { openai } = await client();
    const stream = openai.responses.stream({ model: "m", input: "hi", reasoning: { effort: "low" } });
    const final = await stream.finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect((final.output[1] as unknown as { content: Array<{ text: string }> }).content[0]!.text).toBe("Hello from qtc.");
    const reasoning = final.output[0] as unknown as { content: Array<{ text: string }> };
    expect(reasoning.content[0]!.text).toBe("Let me think.");
  });

  test("and a streamed call", async () => {
    const { openai } = await client();
    const final = await openai.responses.stream({ model: "m", input: "read", tools: [READ_FILE], tool_choice: { type: "function", name: "read_file" } }).finalResponse();
    const call = final.output.find((item) => item.type === "function_call")!;
    expect(call).toMatchObject({ name: "read_file", status: "completed" });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ path: "path-value" });
  });
});
