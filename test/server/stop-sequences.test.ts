// Stop sequences: the answer text ends before the first one whatever the delta boundaries, the turn is cancelled
// there, and both APIs say so (OpenAI finish_reason "stop"; Anthropic stop_reason "stop_sequence" + stop_sequence).

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, test } from "vitest";
import type { GenerateEvent, GenerateResult } from "../../src/runtime/types.js";
import { applyStopSequences, readStopSequences } from "../../src/server/stop-sequences.js";
import { fakeRuntime } from "./fake-runtime.js";
import { parseSse, post, READ_FILE_OPENAI, type Running, start } from "./helpers.js";

const user = [{ role: "user" as const, content: "hi" }];
let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

function resultOf(content: string): GenerateResult {
  return {
    content, reasoning: null, toolCalls: [], errors: [], finishReason: "stop",
    usage: { promptTokens: 3, completionTokens: 9, forcedTokens: 0 },
    timings: { timeToFirstTokenMs: 1, decodeTokensPerSecond: 1, grammarMs: 0, totalMs: 1 },
    diagnostics: { detected: 0, accepted: 0, rejected: {}, emitted: 0, notes: [] }, raw: content, tokens: [], mode: "constrained", format: "hermes",
  };
}

async function* eventsOf(chunks: string[]): AsyncGenerator<GenerateEvent> {
  for (const text of chunks) yield { type: "text-delta", text };
  yield { type: "done", result: resultOf(chunks.join("")) };
}

/** Every way to cut `text` into two or three pieces. */
function splits(text: string): string[][] {
  const out: string[][] = [[text]];
  for (let i = 1; i < text.length; i++) {
    out.push([text.slice(0, i), text.slice(i)]);
    for (let j = i + 1; j < text.length; j++) out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  }
  return out;
}

async function run(chunks: string[], stops: string[]): Promise<{ text: string; result: GenerateResult & { stopSequence?: string }; cancelled: boolean }> {
  let cancelled = false;
  let text = "";
  let result: GenerateResult | undefined;
  for await (const event of applyStopSequences(eventsOf(chunks), stops, () => (cancelled = true))) {
    if (event.type === "text-delta") text += event.text;
    if (event.type === "done") result = event.result;
  }
  return { text, result: result!, cancelled };
}

describe("applyStopSequences", () => {
  test("cuts before the earliest stop sequence under every split of the text", async () => {
    for (const chunks of splits("say ab then END now")) {
      const { text, result, cancelled } = await run(chunks, ["END", "then E", "zz"]);
      expect(text).toBe("say ab ");
      expect(result.content).toBe("say ab ");
      expect(result.finishReason).toBe("stop");
      expect(result.stopSequence).toBe("then E");
      expect(cancelled).toBe(true);
    }
  });

  test("text that only starts like a stop sequence is held back, then given out whole", async () => {
    for (const chunks of splits("an EN-dash")) {
      const { text, result, cancelled } = await run(chunks, ["END"]);
      expect(text).toBe("an EN-dash");
      expect(result.stopSequence).toBeUndefined();
      expect(cancelled).toBe(false);
    }
  });

  test("reads a string or an array, drops empty ones, refuses other shapes", () => {
    expect(readStopSequences("\n", "stop", true)).toEqual(["\n"]);
    expect(readStopSequences(["a", "", "a", "b"], "stop", true)).toEqual(["a", "b"]);
    expect(readStopSequences(null, "stop", true)).toEqual([]);
    expect(() => readStopSequences("x", "stop_sequences", false)).toThrow(expect.objectContaining({ code: "invalid_request" }));
  });
});

describe("over HTTP", () => {
  test("OpenAI: stop cuts the content, finish_reason stop, and the turn is cancelled", async () => {
    const runtime = fakeRuntime({ text: "one two three four five", delayMs: 5 });
    server = await start({ runtime });
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x" });
    const done = await openai.chat.completions.create({ model: "m", messages: user, stop: "three" });
    expect(done.choices[0]!.message.content).toBe("one two ");
    expect(done.choices[0]!.finish_reason).toBe("stop");
    expect(runtime.aborted).toBe(1);

    const stream = await openai.chat.completions.create({ model: "m", messages: user, stop: ["o t", "four"], stream: true });
    let text = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe("one tw");
    expect(finish).toBe("stop");
  });

  test("OpenAI: a call is never cut by a stop sequence in its arguments", async () => {
    server = await start({ runtime: fakeRuntime() });
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: "required", stop: ["path"] });
    expect(res.json.choices[0].finish_reason).toBe("tool_calls");
    expect(JSON.parse(res.json.choices[0].message.tool_calls[0].function.arguments)).toEqual({ path: "path-value" });
  });

  test("Anthropic: stop_reason stop_sequence and the sequence, whole and streamed", async () => {
    server = await start({ runtime: fakeRuntime({ text: "alpha beta gamma" }) });
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "x" });
    const message = await anthropic.messages.create({ model: "m", max_tokens: 32, messages: user, stop_sequences: ["gam", "zzz"] });
    expect(message.stop_reason).toBe("stop_sequence");
    expect(message.stop_sequence).toBe("gam");
    expect(message.content).toEqual([{ type: "text", text: "alpha beta " }]);

    const res = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 32, messages: user, stop_sequences: ["beta"], stream: true });
    const delta = parseSse(res.text).find((f) => f.event === "message_delta")!;
    expect(delta.data.delta).toEqual({ stop_reason: "stop_sequence", stop_sequence: "beta" });
    const text = parseSse(res.text).filter((f) => f.data?.delta?.type === "text_delta").map((f) => f.data.delta.text).join("");
    expect(text).toBe("alpha ");
  });
});
