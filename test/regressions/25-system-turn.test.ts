// Issue 25: Claude Code sends `role: "system"` turns inside `messages` for every model name it does not know (every
// local model). /v1/messages answered 400; now the turn stays where it is and renders as the Qwen3 template renders a
// system turn after the first: `<|im_start|>system … <|im_end|>` in place.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { renderPromptSegments } from "../../src/prompt/index.js";
import { fakeRuntime, type FakeRuntime } from "../server/fake-runtime.js";
import { post, type Running, start } from "../server/helpers.js";

let fake: FakeRuntime;
let server: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  server = await start({ runtime: fake });
});
afterAll(() => server.app.close());

const body = {
  model: "claude-sonnet-4-5",
  max_tokens: 64,
  system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "user", content: [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }] },
    { role: "assistant", content: [{ type: "text", text: "Hi." }] },
    { role: "system", content: "The user switched to plan mode." },
    { role: "user", content: "go on" },
  ],
};

describe("a system turn mid-conversation (Anthropic)", () => {
  test("is served, and reaches the runtime in its place", async () => {
    const res = await post(`${server.url}/v1/messages`, body);
    expect(res.status).toBe(200);
    expect(res.json.type).toBe("message");
    const messages = fake.requests.at(-1)!.messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "system", "user"]);
    expect(messages[3]).toEqual({ role: "system", content: "The user switched to plan mode." });
  });

  test("renders as the Qwen3 template renders a later system turn", () => {
    const messages = fake.requests.at(-1)!.messages;
    const text = renderPromptSegments({ messages, format: "hermes" }).map((s) => s.text).join("");
    expect(text).toContain("<|im_start|>assistant\nHi.<|im_end|>\n<|im_start|>system\nThe user switched to plan mode.<|im_end|>\n<|im_start|>user\ngo on<|im_end|>");
  });

  test("a system turn with content blocks, streamed, is served too", async () => {
    const stream = { ...body, stream: true, messages: [...body.messages.slice(0, 2), { role: "system", content: [{ type: "text", text: "Reminder." }] }, body.messages[3]] };
    const res = await post(`${server.url}/v1/messages`, stream);
    expect(res.status).toBe(200);
    expect(res.text).toContain("event: message_stop");
    expect(fake.requests.at(-1)!.messages[3]).toEqual({ role: "system", content: "Reminder." });
  });
});
