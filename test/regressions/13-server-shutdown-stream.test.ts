// Issue 13: closing the server mid-stream sent a normal finish (`finish_reason: "stop"` + `[DONE]`, or `end_turn`
// + `message_stop`) and only then the error, so a client took a cut-off answer for a complete one. Now an
// in-flight stream gets an error (code `shutting_down`) and no normal finish; against the real runtime, which
// ends an aborted turn with a `done` event of its own.

import { afterAll, beforeAll, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { tinyModelPath } from "../helpers/models.js";
import { parseSse, post, start } from "../server/helpers.js";

let runtime: Runtime;
const user = [{ role: "user", content: "Write a long story." }];

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 2048, sequences: 2, gpu: "cpu" });
});
afterAll(async () => {
  await runtime?.close();
});

/** Start a stream, close the server once `ready(text so far)` holds, and return the whole SSE body. */
async function closeMidStream(path: string, body: unknown, ready: (text: string) => boolean): Promise<{ text: string; queued: Promise<{ status: number; json: any }> }> {
  const server = await start({ runtime, parallel: 1 });
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let queued: Promise<{ status: number; json: any }> | undefined;
  let closing: Promise<void> | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (!closing && ready(text)) {
      queued = post(`${server.url}${path}`, { ...(body as object), stream: false }); // waits for the one slot
      await new Promise((r) => setTimeout(r, 50));
      closing = server.app.close();
    }
  }
  await closing;
  expect(closing, "the stream ended before the server was closed").toBeDefined();
  return { text, queued: queued! };
}

test("OpenAI: a stream cut by shutdown ends with an error object, no finish_reason and no [DONE]", async () => {
  const body = { model: "m", messages: user, max_tokens: 1500, seed: 3, stream: true };
  const { text, queued } = await closeMidStream("/v1/chat/completions", body, (t) => t.split("\n\n").length > 4);
  const frames = parseSse(text);
  expect(frames.some((f) => f.data === "[DONE]")).toBe(false);
  const chunks = frames.filter((f) => f.data !== "[DONE]" && f.data.choices);
  expect(chunks.length).toBeGreaterThan(1);
  for (const chunk of chunks) expect(chunk.data.choices[0].finish_reason).toBeNull();
  const last = frames[frames.length - 1]!;
  expect(last.data.error?.code).toBe("shutting_down");
  const waiting = await queued;
  expect(waiting.status).toBe(503);
  expect(waiting.json.error.code).toBe("shutting_down");
});

test("Anthropic: a stream cut by shutdown ends with an error event, no message_delta stop_reason and no message_stop", async () => {
  const body = { model: "m", messages: user, max_tokens: 1500, stream: true };
  const { text, queued } = await closeMidStream("/v1/messages", body, (t) => t.includes("content_block_delta"));
  const frames = parseSse(text);
  const names = frames.map((f) => f.event);
  expect(names).not.toContain("message_stop");
  expect(names).not.toContain("message_delta");
  expect(names[names.length - 1]).toBe("error");
  expect(frames[frames.length - 1]!.data).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
  const waiting = await queued;
  expect(waiting.status).toBe(503);
  expect(waiting.json).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
});
