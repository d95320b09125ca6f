// Issue 39, item 1: arguments did not stream. A call reached a streaming client only once it was complete (start,
// the whole arguments as one delta, the call), so a long write_file showed nothing until it ended. Under the
// grammar the prefix already sent is guaranteed to complete, so a constrained call's arguments now stream as they
// are generated, on every route and in the library, and the fragments concatenate to the final arguments. When
// each piece arrived is counted in model passes (one per generated step; the test and the server share a process).

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type GenerateEvent, type Runtime } from "../../src/index.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { tinyModelPath } from "../helpers/models.js";
import { start, type Running } from "../server/helpers.js";

const WRITE = HARNESS_TOOLS.find((t) => t.function.name === "write_file")!;
const OPENAI_TOOLS = [{ type: "function" as const, function: { ...WRITE.function } }];
const messages = [{ role: "user" as const, content: "Write the file." }];
const MAX_TOKENS = 400;

let runtime: Runtime;
let server: Running;
/** Model passes so far (each generated step is one). */
let passes = 0;
beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 2048, onDecodePass: () => void passes++ });
  server = await start({ runtime });
});
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

/** When a client saw the call start, its first argument fragment, and the end (in model passes). */
class Seen {
  start = -1;
  first = -1;
  end = -1;
  fragment(): void {
    if (this.first < 0) this.first = passes;
  }
  started(): void {
    if (this.start < 0) this.start = passes;
  }
}

/**
 * The streamed fragments of one call: ≥ 200 bytes in at least 4 fragments, the first seen before half of the
 * call's passes had run, all concatenating to canonical JSON (and to `final` when the route says it).
 */
function expectStreamed(fragments: string[], seen: Seen, final?: string): void {
  seen.end = passes;
  const args = fragments.join("");
  expect(Buffer.byteLength(args)).toBeGreaterThanOrEqual(200);
  expect(fragments.length).toBeGreaterThanOrEqual(4);
  expect(seen.start).toBeGreaterThanOrEqual(0);
  expect(seen.first - seen.start).toBeLessThan((seen.end - seen.start) / 2);
  expect(JSON.stringify(JSON.parse(args))).toBe(args);
  if (final !== undefined) expect(args).toBe(final);
}

describe("arguments stream under the grammar (issue 39)", () => {
  test("library: tool-call-start, then argument deltas, then the call; the deltas concatenate to its arguments", async () => {
    const events: GenerateEvent[] = [];
    const seen = new Seen();
    for await (const e of runtime.stream({ messages, tools: OPENAI_TOOLS, toolChoice: { name: "write_file" }, maxTokens: MAX_TOKENS, seed: 2 })) {
      if (e.type === "tool-call-start") seen.started();
      if (e.type === "tool-call-delta") seen.fragment();
      events.push(e);
    }
    const done = events.at(-1)!;
    if (done.type !== "done") throw new Error("no done event");
    const call = done.result.toolCalls[0]!;
    const kinds = events.map((e) => e.type);
    expect(kinds.indexOf("tool-call-start")).toBeLessThan(kinds.indexOf("tool-call-delta"));
    expect(kinds.lastIndexOf("tool-call-delta")).toBeLessThan(kinds.indexOf("tool-call"));
    expect(events.find((e) => e.type === "tool-call-start")).toMatchObject({ id: call.id, name: "write_file", index: 0 });
    const deltas = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.argumentsDelta] : []));
    expectStreamed(deltas, seen, call.arguments);
  });

  test("/v1/chat/completions: delta.tool_calls[0].function.arguments fragments (the openai SDK reads them)", async () => {
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "none", maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: "m", messages, tools: OPENAI_TOOLS, tool_choice: { type: "function", function: { name: "write_file" } }, max_tokens: MAX_TOKENS, seed: 2, stream: true });
    const fragments: string[] = [];
    const seen = new Seen();
    let name = "";
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (tc.function?.name) seen.started();
        name += tc.function?.name ?? "";
        if (tc.function?.arguments) (fragments.push(tc.function.arguments), seen.fragment());
      }
    }
    expect(name).toBe("write_file");
    expectStreamed(fragments, seen);
  });

  test("/v1/messages: input_json_delta fragments (the anthropic SDK reads them)", async () => {
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "none", maxRetries: 0 });
    const tools = [{ name: "write_file", description: WRITE.function.description, input_schema: WRITE.function.parameters as Anthropic.Tool.InputSchema }];
    const stream = anthropic.messages.stream({ model: "m", max_tokens: MAX_TOKENS, messages, tools, tool_choice: { type: "tool", name: "write_file" } });
    const fragments: string[] = [];
    const seen = new Seen();
    for await (const event of stream) {
      if (event.type === "content_block_start" && event.content_block.type === "tool_use") seen.started();
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") (fragments.push(event.delta.partial_json), seen.fragment());
    }
    const final = await stream.finalMessage();
    const use = final.content.find((b) => b.type === "tool_use");
    expectStreamed(fragments, seen);
    expect(use && use.type === "tool_use" ? use.input : undefined).toEqual(JSON.parse(fragments.join("")));
  });

  test("/v1/responses: response.function_call_arguments.delta fragments concatenate to the item's arguments", async () => {
    const tools = [{ type: "function", name: "write_file", parameters: WRITE.function.parameters }];
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "none", maxRetries: 0 });
    const stream = await openai.responses.create({ model: "m", input: "Write the file.", tools: tools as OpenAI.Responses.Tool[], tool_choice: { type: "function", name: "write_file" }, max_output_tokens: MAX_TOKENS, stream: true });
    const fragments: string[] = [];
    const seen = new Seen();
    let final = "";
    for await (const event of stream) {
      if (event.type === "response.output_item.added" && event.item.type === "function_call") seen.started();
      if (event.type === "response.function_call_arguments.delta") (fragments.push(event.delta), seen.fragment());
      if (event.type === "response.function_call_arguments.done") final = event.arguments;
    }
    expectStreamed(fragments, seen, final);
  });
});
